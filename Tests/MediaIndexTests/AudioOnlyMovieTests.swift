import Foundation
import Testing
@testable import MediaIndex

@Suite("Movie containers holding sound alone")
struct AudioOnlyMovieTests {
    /// An ISO-BMFF file with an `isom` brand and one sound track: what ffmpeg writes for
    /// `-c:a aac song.mp4`, and some recorders for `.m4a`.
    static let soundOnlyMovie: [UInt8] = {
        func be32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (24 - 8 * $0)) & 0xFF) } }
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(8 + payload.count) + Array(type.utf8) + payload }
        let mvhd = box("mvhd", [0, 0, 0, 0] + be32(0) + be32(0) + be32(600) + be32(1200) + be32(0x10000)
                       + [1, 0] + [UInt8](repeating: 0, count: 10) + [UInt8](repeating: 0, count: 36 + 24) + be32(2))
        let hdlr = box("hdlr", [0, 0, 0, 0] + be32(0) + Array("soun".utf8) + [UInt8](repeating: 0, count: 13))
        return box("ftyp", Array("isom".utf8) + be32(0) + Array("isom".utf8)) + box("moov", mvhd + box("trak", box("mdia", hdlr)))
            + box("mdat", [UInt8](repeating: 0, count: 32))
    }()

    @Test("are no assets: an .m4a is skipped as not media, an .mp4 (a name that promises video) is an error saying why")
    func soundAloneIsNotAnAsset() throws {
        let folder = TemporaryFolder()
        let root = folder.file("music")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data(Self.soundOnlyMovie).write(to: URL(fileURLWithPath: root + "/song.m4a"))
        try Data(Self.soundOnlyMovie).write(to: URL(fileURLWithPath: root + "/song.mp4"))
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("library")))
        let summary = try library.blocking.index(roots: [PathBytes(root)])
        #expect(summary.added == 0 && summary.skipped == 1 && summary.failed == 1)
        let errors = try library.blocking.errors()
        #expect(errors.count == 1)
        #expect(errors.first?.path.displayString.hasSuffix("song.mp4") == true)
        #expect(errors.first?.message.contains("sound alone") == true, "\(errors.first?.message ?? "")")
    }
}
