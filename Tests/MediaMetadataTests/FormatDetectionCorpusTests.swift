import CorpusSupport
@testable import MediaMetadata
import Testing

@Suite("Format detection on the corpus")
struct FormatDetectionCorpusTests {
    /// What each exiftool file type should be detected as; `.some(nil)` means not media.
    static let expected: [String: MediaFormat?] = [
        "JPEG": .jpeg, "PNG": .png, "GIF": .gif, "WEBP": .webp, "Extended WEBP": .webp, "BMP": .bmp,
        "TIFF": .tiff, "DNG": .dng, "NEF": .nef, "RW2": .rw2, "IIQ": .iiq, "CRW": .crw, "RAF": .raf, "X3F": .x3f,
        "HEIC": .heic, "HEIF": .heif, "AVIF": .avif, "CR3": .cr3, "MOV": .quickTime, "MP4": .mp4, "3GP": .threeGP,
        "AVI": .avi, "MKV": .matroska, "WEBM": .webm, "WMV": .wmv, "ASF": .wmv, "FLV": .flv, "DV": .dv,
        "MXF": .mxf, "OGV": .ogv, "M2V": .mpegPS, "JXL": .jpegXL, "JXL Codestream": .jpegXL,
        "MP3": nil, "FLAC": nil, "M4A": nil, "OPUS": nil, "OGG": nil, "XMP": nil, "TXT": nil, "JSON": nil,
        "PSD": nil, "XML": nil, "AAE": nil,
    ]

    /// Files where we name another format than exiftool on purpose.
    static let deliberate: [String: String] = [
        "exiv2-test-data/test/data/Canon.HIF": "major brand heix: we call every HEVC-coded HEIF .heic",
        "exiv2-test-data/test/data/Sony.HIF": "major brand heix: we call every HEVC-coded HEIF .heic",
        "exiv2-test-data/test/data/issue_9292_sony_8_left-bottom.HIF": "major brand heix: we call every HEVC-coded HEIF .heic",
        "exiv2-test-data/test/data/exiv2-bug855.jpg": "the bytes are a JFIF JPEG; exiftool goes by an embedded DNG marker",
        "exiv2-test-data/test/data/issue_1791_old.raf": "fuzzed header lacks FUJIFILMCCD-RAW; not recognisable as RAF",
        "exiv2-test-data/test/data/issue_857_coverage.raf": "fuzzed header lacks FUJIFILMCCD-RAW; not recognisable as RAF",
        "mathiasbynens-small/mp4-with-audio.mp4": "brands isom/mp41 say MP4; telling audio-only needs the tracks (ISO-BMFF reader)",
        "nom-exif/testdata/compatible-brands.heic": "unknown major brand; the compatible mif1 makes it HEIF",
        "nom-exif/testdata/compatible-brands.mov": "unknown major brand; the compatible qt makes it QuickTime",
        "photoprism/internal/photoprism/testdata/star.avifs": "brand avis is an AVIF image sequence",
    ]

    @Test("detects the format exiftool names for every file whose type we know",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func agreesWithExiftoolFileType() throws {
        guard let media = Corpus.media else { return }
        var compared = 0, agreed = 0
        for entry in Corpus.manifest {
            guard let path = entry["path"]?.string, let type = entry["exiftool_file_type"]?.string,
                  let want = Self.expected[type], Self.deliberate[path] == nil else { continue }
            guard let source = try? FileByteSource(path: media.appendingPathComponent(path).path) else { continue }
            compared += 1
            let got = try MetadataReader.detectFormat(source)
            if got == want { agreed += 1 } else {
                print("  format \(path): exiftool \(type), ours \(got.map { $0.rawValue } ?? "not media")")
            }
        }
        print("format detection: \(agreed) of \(compared) agree with exiftool's file type")
        #expect(compared > 500)
        #expect(agreed == compared)
    }
}
