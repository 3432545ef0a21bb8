import Foundation
import Testing
@testable import MediaMetadata

/// Inputs the `heif-items` fuzz target found, kept as regressions.
@Suite("HEIF item reader on fuzzed input")
struct HEIFItemsFuzzRegressionTests {
    /// An 881-byte AVIF whose `iloc` lists item 5 again with a 8 MB extent: the reader
    /// handed that range out for decoding.
    static let itemRangePastTheEnd = "AAAAHGZ0eXBhdmlmAAAAAGF2aWZtaWYxbWlhZgAAAidtZXRhAAAAAAAAACFoZGxyAAAAAAAAAABwaWN0AAAAAAAAAAAAAAAAAAAAAA5waXRtAAAAAAAFAAAAcGlsb2MBAAAARAAABgABAAAAAAABAAADJwAAAEkAAgAAAAAAAQAAAycAAABJAAMAAAAAAAEAAAMnAAAABAAAAEkAAAABAAADJwAAAEkABQAjAAAAAQAAAAAAgAAIAAYAAAAAAAEAAAJLAAAA3AAAAJVpaW5mAAAAAAAGAAAAFWluZmUCAAAAAAEAAGF2MDEAAAAAFWluZmUCAAAAAAIAAGF2MDEAAAAAFWluZmUCAAAAAAMAAGF2MDEAAAAAFWluZmUCAAAAAAQAAGF2MDEAAAAAGmluZmUCAAAAAAUAAGdyaWRDb2xvcgAAAAAZaW5mZQIAAAEABgAARXhpZkV4aWYAAAAALmlyZWYAAAAAAAAAFGRpbWcABQAEAAEAAgADAAQAAAAOY2RzYwAGAAEABQAAAKlpcHJwAAAAb2lwY28AAAAUaXNwZQAAAAAAAAGQAAABLAAAABBwYXNwAAAAAQAAAAEAAAAMYXYwQ4FACAAAAAAQcGl4aQAAAAADCAgIAAAAFGlzcGUAAAAAAAADIAAAAlgAAAATY29scm5jbHgAAQANAAGAAAAAMmlwbWEAAAAAAAAABQABBAECg4QAAgQBAoOEAAMEAQKDhAAEBAECg4QABQMFhIYAAAAQaWRhdAAAAQEDIAJYAAABLW1kYXQAAAAASUkqAAgAAAAGABIBAwABAAAAAQAAABoBBQABAAAAVgAAABsBBQABAAAAXgAAACgBAwABAAAAAgAAADEBAgARAAAAZgAAAGmHBAABAAAAeAAAAAAAAABgAAAAAQAAAGAAAAABAAAAcGFpbnQubmV0IDUuMC4xMQAABQAAkAcABAAAADAyMzABoAMAAQAAAAEAAAACoAQAAQAAACADAAADoAQAAQAAAFgCAAAFoAQAAQAAADC6AAAAAAAAAAIAAQACAAQAAABSOTgAAgAHAAQAAAAwMTAwAAAAABIACgpYIjHytogIaAyAMjkQHAAAEAAEtEmLrnWHkb8Bv0tkD49GU7lNhSLMeuhYI619mK8nryjiWOhrmbdfkKzzqNck9XlaoMA="

    @Test("no data range handed out for decoding lies past the end of the file")
    func rangesStayInsideTheFile() throws {
        let bytes = try #require(Data(base64Encoded: Self.itemRangePastTheEnd).map { [UInt8]($0) })
        let items = try HEIFItems.read(MemoryByteSource(bytes))
        for id in items.items.keys {
            guard let ranges = try? items.fileRanges(of: id, fileSize: UInt64(bytes.count)) else { continue }
            #expect(ranges.allSatisfy { $0.upperBound <= UInt64(bytes.count) }, "item \(id)")
        }
        // The item with the lying extent is refused, not cut.
        #expect(throws: MetadataError.self) { try items.fileRanges(of: 5, fileSize: UInt64(bytes.count)) }
    }
}
