import Foundation
import Testing
import MediaMetadata
@testable import MediaThumbnails

/// Every image format we index either gets a thumbnail, or docs/thumbnails.md says why not.
@Suite("Thumbnail format audit")
struct FormatAuditTests {
    static let thumbnailsPage: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("docs/thumbnails.md"), encoding: .utf8)) ?? ""
    }()

    @Test("every image format is either decoded or listed as not decoded, never both")
    func decodedOrListed() {
        for format in MediaFormat.allCases where format.mediaType == .image {
            let listed = ThumbnailGenerator.formatsWithoutDecoder[format] != nil
            #expect(ThumbnailGenerator.supports(format) != listed, "\(format.rawValue)")
        }
        #expect(ThumbnailGenerator.formatsWithoutDecoder.keys.allSatisfy { $0.mediaType == .image })
    }

    @Test("docs/thumbnails.md names each format not decoded, with its reason, one line each")
    func thumbnailsPageListsEachUndecodedFormat() {
        #expect(!Self.thumbnailsPage.isEmpty, "docs/thumbnails.md not found")
        let lines = Self.thumbnailsPage.split(separator: "\n").map(String.init)
        for (format, reason) in ThumbnailGenerator.formatsWithoutDecoder.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            #expect(lines.contains { $0.hasPrefix("- `\(format.rawValue)` ") && $0.hasSuffix(": \(reason)") },
                    "docs/thumbnails.md lacks the line for \(format.rawValue): \(reason)")
        }
    }

    @Test("a format not decoded is refused with its reason, before the file is read whole")
    func refusalNamesTheReason() throws {
        for (format, reason) in ThumbnailGenerator.formatsWithoutDecoder {
            let error = #expect(throws: ThumbnailError.self) {
                try ThumbnailGenerator.thumbnail(of: MemoryByteSource([0, 1, 2, 3]), format: format, orientation: 1,
                                                 request: ThumbnailRequest(maxPixelSize: 64))
            }
            #expect(error?.description.contains(reason) == true, "\(format.rawValue): \(String(describing: error))")
        }
    }
}
