import CorpusSupport
import Foundation
import MediaMetadata
import Testing
@testable import MediaThumbnails

@Suite("Windows icons and cursors: the largest picture inside")
struct IconDecodingTests {
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16((v >> 16) & 0xFFFF) }

    /// An icon (type 1) or cursor (type 2) file of `pictures`, each listed with its stated size.
    static func iconFile(type: Int = 1, _ pictures: [(stated: Int, bytes: [UInt8])]) -> [UInt8] {
        var directory = le16(0) + le16(type) + le16(pictures.count)
        var offset = 6 + 16 * pictures.count
        for picture in pictures {
            let side = UInt8(picture.stated & 0xFF)
            directory += [side, side, 0, 0] + le16(type == 1 ? 1 : 3) + le16(type == 1 ? 32 : 5)
            directory += le32(picture.bytes.count) + le32(offset)
            offset += picture.bytes.count
        }
        return directory + pictures.flatMap(\.bytes)
    }

    /// A 32-bit bitmap picture as icons hold it: a 40-byte DIB header whose height counts the
    /// AND mask too, bottom-up BGRA rows, then the 1-bit mask.
    static func bitmapPicture(side: Int, bgra: [UInt8], firstPixel: [UInt8]? = nil) -> [UInt8] {
        let header = le32(40) + le32(side) + le32(side * 2) + le16(1) + le16(32) + le32(0) + le32(0)
            + le32(0) + le32(0) + le32(0) + le32(0)
        let pixels = (0..<(side * side)).flatMap { $0 == 0 ? firstPixel ?? bgra : bgra }
        let maskRow = ((side + 31) / 32) * 4
        return header + pixels + [UInt8](repeating: 0, count: maskRow * side)
    }

    /// A PNG picture of one RGB colour.
    static func pngPicture(side: Int, rgb: [UInt8]) -> [UInt8] {
        let raw: [UInt8] = (0..<side).flatMap { _ -> [UInt8] in [0] + (0..<side).flatMap { _ in rgb } }
        return ThumbnailTestSupport.pngFile(width: UInt32(side), height: UInt32(side), bitDepth: 8, colourType: 2,
                                            chunks: [("IDAT", ThumbnailTestSupport.zlibStored(raw))])
    }

    static func thumbnail(_ bytes: [UInt8], size: Int = 256) throws -> EncodedThumbnail {
        let source = MemoryByteSource(bytes)
        let format = try #require(try MetadataReader.detectFormat(source))
        #expect(format == .ico)
        return try ThumbnailGenerator.thumbnail(of: source, format: format, orientation: nil,
                                                request: ThumbnailRequest(maxPixelSize: size))
    }

    @Test("the largest of a PNG and two bitmaps is decoded, whatever the directory's one-byte sizes say")
    func largestPictureWins() throws {
        // The 48-px PNG is listed as "0" (256): its own IHDR says 48, and the 64-px bitmap wins.
        let bytes = Self.iconFile([(16, Self.bitmapPicture(side: 16, bgra: [0, 0, 255, 255])),
                                   (0, Self.pngPicture(side: 48, rgb: [0, 255, 0])),
                                   (64, Self.bitmapPicture(side: 64, bgra: [255, 0, 0, 255]))])
        let thumbnail = try Self.thumbnail(bytes)
        #expect(thumbnail.width == 64 && thumbnail.height == 64)
        let mean = ThumbnailTestSupport.meanColour(try ThumbnailTestSupport.pixels(ofJPEG: thumbnail.data))
        #expect(mean[0] < 8 && mean[1] < 8 && mean[2] > 245, "\(mean)")
    }

    @Test("a PNG picture is decoded when it is the largest; a cursor is read as an icon")
    func pngInCursor() throws {
        let bytes = Self.iconFile(type: 2, [(32, Self.bitmapPicture(side: 32, bgra: [0, 0, 255, 255])),
                                            (0, Self.pngPicture(side: 96, rgb: [0, 200, 0]))])
        let thumbnail = try Self.thumbnail(bytes)
        #expect(thumbnail.width == 96 && thumbnail.height == 96)
        let mean = ThumbnailTestSupport.meanColour(try ThumbnailTestSupport.pixels(ofJPEG: thumbnail.data))
        #expect(mean[0] < 8 && abs(mean[1] - 200) < 4 && mean[2] < 8, "\(mean)")
    }

    @Test("a transparent 32-bit bitmap is composited on white")
    func transparentBitmap() throws {
        // One opaque pixel: a picture whose alpha bytes are all zero would be opaque, as browsers show it.
        let bytes = Self.iconFile([(32, Self.bitmapPicture(side: 32, bgra: [0, 0, 0, 0], firstPixel: [0, 0, 255, 255]))])
        let mean = ThumbnailTestSupport.meanColour(try ThumbnailTestSupport.pixels(ofJPEG: try Self.thumbnail(bytes).data))
        #expect(mean.allSatisfy { $0 > 247 }, "\(mean)")
    }

    @Test("a directory pointing outside the file, or at nothing known, is an error naming the icon")
    func hostileDirectories() throws {
        let picture = Self.pngPicture(side: 8, rgb: [1, 2, 3])
        var outside = Self.iconFile([(8, picture)])
        outside.replaceSubrange(18..<22, with: Self.le32(1 << 30))  // the offset
        var garbage = Self.iconFile([(8, [UInt8](repeating: 0x41, count: 64))])
        garbage[6] = 8
        for bytes in [outside, garbage, Array(Self.iconFile([(8, picture)]).prefix(30))] {
            #expect {
                try ThumbnailGenerator.thumbnail(of: MemoryByteSource(bytes), format: .ico, orientation: nil,
                                                 request: ThumbnailRequest(maxPixelSize: 64))
            } throws: { error in
                "\(error)".contains("icon") || "\(error)".contains("PNG")
            }
        }
    }

    @Test("corpus icons give their largest picture, at the size exiftool reads for one-picture icons",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusIcons() throws {
        let icons = ThumbnailTestSupport.corpusFiles { $0["File:FileType"]?.string == "ICO" }
        #expect(!icons.isEmpty)
        for file in icons {
            let path = try #require(ThumbnailTestSupport.path(file))
            let reading = try #require(Corpus.exiftool[file])
            let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 256))
            if reading["File:ImageCount"]?.number == 1, let width = reading["File:ImageWidth"]?.number {
                #expect(thumbnail.width == min(256, Int(width)), "\(file)")
            } else {
                // exiftool reads the first entry; the largest is at least that.
                #expect(thumbnail.width >= Int(reading["File:ImageWidth"]?.number ?? 0), "\(file)")
            }
        }
    }
}

@Suite("JPEG 2000 through OpenJPEG")
struct JPEG2000DecodingTests {
    static func corpusJPEG2000() -> [String] {
        ThumbnailTestSupport.corpusFiles { ["JP2", "J2C", "JPX"].contains($0["File:FileType"]?.string ?? "") }
    }

    /// The picture's size as exiftool reads it (the JP2 header's, else the codestream's).
    static func statedSize(_ reading: [String: JSONValue]) -> (width: Int, height: Int)? {
        guard let width = reading["Jpeg2000:ImageWidth"]?.number ?? reading["File:ImageWidth"]?.number,
              let height = reading["Jpeg2000:ImageHeight"]?.number ?? reading["File:ImageHeight"]?.number else { return nil }
        return (Int(width), Int(height))
    }

    @Test("every corpus JPEG 2000 decodes at exiftool's size, or is refused with a reason",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusFiles() throws {
        let files = Self.corpusJPEG2000()
        #expect(files.count >= 5)
        var decoded = 0
        for file in files {
            let path = try #require(ThumbnailTestSupport.path(file))
            let reading = try #require(Corpus.exiftool[file])
            let request = ThumbnailRequest(maxPixelSize: 256)
            do {
                let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: path, request: request)
                let size = try #require(Self.statedSize(reading))
                let expected = ThumbnailGeometry.scaledSize(width: size.width, height: size.height, request: request)
                #expect(abs(thumbnail.width - expected.width) <= 1 && abs(thumbnail.height - expected.height) <= 1,
                        "\(file): \(thumbnail.width)×\(thumbnail.height), expected \(expected)")
                decoded += 1
            } catch let error as ThumbnailError {
                // Only the fuzzed file (808464432 pixels a side) may be refused.
                #expect(file.contains("heap-buffer"), "\(file): \(error)")
            }
        }
        #expect(decoded == files.count - files.filter { $0.contains("heap-buffer") }.count)
    }

    @Test("a large JPEG 2000 decodes from its wavelet levels at a fraction of its size, as ffmpeg sees it",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func reducedDecode() throws {
        let file = "metadata-extractor-images/jpg2000/balloon.jp2"
        let path = try #require(ThumbnailTestSupport.path(file))
        let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: path, request: ThumbnailRequest(maxPixelSize: 256))
        #expect(thumbnail.path == .jpeg2000Reduced(factor: 8))
        #expect(thumbnail.height == 256)
        // ffmpeg's own JPEG 2000 decoder, averaged to one pixel, is the reference colour.
        guard let reference = Self.ffmpegMeanColour(path) else { return }
        let mean = ThumbnailTestSupport.meanColour(try ThumbnailTestSupport.pixels(ofJPEG: thumbnail.data))
        for (ours, theirs) in zip(mean, reference) { #expect(abs(ours - theirs) < 4, "\(mean) vs ffmpeg \(reference)") }
    }

    @Test("a truncated JPEG 2000 is an error or a partial picture, never a crash",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func truncated() throws {
        let path = try #require(ThumbnailTestSupport.path("exiv2-test-data/test/data/Reagan.jp2"))
        let source = try FileByteSource(path: path)
        let bytes = try source.readExactly(at: 0, count: Int(source.size))
        for length in [12, 100, bytes.count / 3, bytes.count - 10] {
            _ = try? ThumbnailGenerator.thumbnail(of: MemoryByteSource(Array(bytes.prefix(length))), format: .jpeg2000,
                                                  orientation: nil, request: ThumbnailRequest(maxPixelSize: 64))
        }
    }

    static func ffmpegMeanColour(_ path: String) -> [Double]? {
        guard let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first(where: FileManager.default.isExecutableFile) else {
            return nil
        }
        guard let outcome = try? ExternalTool.outcome(ffmpeg, ["-v", "error", "-i", path, "-vf", "scale=1:1:flags=area",
                                                               "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]),
              outcome.exitStatus == 0, outcome.standardOutput.count == 3 else { return nil }
        return outcome.standardOutput.map(Double.init)
    }
}
