import Foundation
import Testing
import CorpusSupport
import MediaMetadata
@testable import MediaIndex

/// The `panorama` and `hdr` rules, checked on the files `docs/subtypes.md` cites as
/// their evidence, and on the phone frames that are not panoramas.
@Suite("Subtype evidence")
struct SubtypeEvidenceTests {
    static let cases: [(file: String, inMedia: Bool, expected: MediaSubtypes, absent: MediaSubtypes)] = [
        ("ente-test-fixtures/media/motion-photos/v1/files/pixel_8.jpg", true, .hdr, []),
        ("exiftool-t-images/t/images/Google.jpg", true, .hdr, []),
        ("metadata-extractor-images/heic/Issue 437 (dotnet).heic", true, .hdr, .panorama),
        ("ianare-exif-samples/jpg/tests/67-0_length_string.jpg", true, [], .panorama),
        ("photoprism/internal/photoprism/testdata/panorama360.jpg", true, .panorama, []),
        ("panorama/PANO_7009.jpg", false, .panorama, []),
        ("panorama/sphere_7010.jpg", false, .panorama, []),
    ]

    @Test("the evidence files of docs/subtypes.md get their subtype, and a phone's wide frame is no panorama",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func evidence() throws {
        for item in Self.cases {
            let root = try #require(item.inMedia ? Corpus.media : Corpus.synthetic)
            let path = root.appendingPathComponent(item.file).path
            let metadata = try #require(try MetadataReader.read(FileByteSource(path: path)), "\(item.file)")
            let subtypes = SubtypeClassifier.subtypes(of: metadata, fileName: (item.file as NSString).lastPathComponent)
            #expect(subtypes.isSuperset(of: item.expected), "\(item.file): \(subtypes)")
            #expect(subtypes.intersection(item.absent).isEmpty, "\(item.file): \(subtypes)")
        }
    }
}
