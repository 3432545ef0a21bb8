@testable import MediaMetadata
import Testing

@Suite("ExifDecoder")
struct ExifDecoderTests {
    @Test("decodes camera, exposure, date with offset and signed GPS from an EXIF block")
    func decodesAllFields() {
        // Given a hand-built EXIF block
        var m = MediaMetadata(format: .jpeg)
        // When it is applied
        ExifDecoder.apply(exif: Array("Exif\0\0".utf8) + Fixture.cameraTIFF, to: &m)
        // Then every field comes through
        #expect(m.make == "Apple")
        #expect(m.model == "iPhone 12 Pro")
        #expect(m.software == "17.1")
        #expect(m.orientation == 6)
        #expect(m.captureDate?.iso8601 == "2023-11-01T15:11:17.049+01:00")
        #expect(m.fNumber == 1.6)
        #expect(m.exposureTime == 1.0 / 120)
        #expect(m.iso == 50)
        #expect(m.focalLength == 4.2)
        #expect(m.flash == 16)
        #expect(m.lensModel == "iPhone back camera")
        #expect(m.pixelWidth == 4032 && m.pixelHeight == 3024)
        let location = m.location
        #expect(abs((location?.latitude ?? 0) - -(33 + 52.0 / 60 + 12.3 / 3600)) < 1e-9)
        #expect(location?.longitude == -(151 + 12.0 / 60))
        #expect(location?.altitude == -12.5)
        #expect(m.warnings.isEmpty)
    }

    @Test("container facts win over EXIF")
    func containerWins() {
        var m = MediaMetadata(format: .jpeg)
        m.pixelWidth = 10; m.pixelHeight = 20; m.make = "Container"
        ExifDecoder.apply(exif: Fixture.cameraTIFF, to: &m)
        #expect(m.pixelWidth == 10 && m.pixelHeight == 20)
        #expect(m.make == "Container")
        #expect(m.model == "iPhone 12 Pro")
    }

    @Test("a block beyond libexif's 64 KiB limit is read by the TIFF walker with the same result")
    func largeBlock() {
        var small = MediaMetadata(format: .tiff), large = MediaMetadata(format: .tiff)
        ExifDecoder.apply(exif: Fixture.cameraTIFF, to: &small)
        let padded = Fixture.tiff(ifd0: [.ascii(0x010F, "Apple"), .ascii(0x0110, "iPhone 12 Pro"), .short(0x0112, 6),
                                         .ascii(0x0131, "17.1")],
                                  exif: [.ascii(0x9003, "2023:11:01 15:11:17"), .ascii(0x9291, "049"), .ascii(0x9011, "+01:00")],
                                  padding: 70_000)
        #expect(padded.count > LibExifDocument.maxBlockBytes)
        ExifDecoder.apply(exif: padded, to: &large)
        #expect(large.make == small.make && large.model == small.model && large.orientation == small.orientation)
        #expect(large.captureDate == small.captureDate)
    }

    @Test("falls back to DateTimeDigitized, then IFD0 DateTime with OffsetTime")
    func dateFallbacks() {
        var m = MediaMetadata(format: .jpeg)
        ExifDecoder.apply(exif: Fixture.tiff(ifd0: [.ascii(0x0132, "2020:02:29 23:59:58")],
                                             exif: [.ascii(0x9010, "-05:30")]), to: &m)
        #expect(m.captureDate?.iso8601 == "2020-02-29T23:59:58-05:30")
        var digitized = MediaMetadata(format: .jpeg)
        ExifDecoder.apply(exif: Fixture.tiff(ifd0: [.ascii(0x0132, "2020:02:29 23:59:58")],
                                             exif: [.ascii(0x9004, "2019:01:02 03:04:05")]), to: &digitized)
        #expect(digitized.captureDate?.iso8601 == "2019-01-02T03:04:05")
    }

    @Test("zero denominators, blank dates, out-of-range orientation and Latin-1 text")
    func hostileValues() {
        var m = MediaMetadata(format: .jpeg)
        ExifDecoder.apply(exif: Fixture.tiff(ifd0: [Fixture.Field(tag: 0x010F, type: 2, count: 6, bytes: [0x4E, 0x49, 0xC9, 0x20, 0, 0]),
                                                    .short(0x0112, 9)],
                                             exif: [.ascii(0x9003, "0000:00:00 00:00:00"), .rationals(0x829D, [(28, 0)])]),
                          to: &m)
        #expect(m.make == "NIÉ")
        #expect(m.orientation == nil)
        #expect(m.captureDate == nil)
        #expect(m.fNumber == nil)
    }

    @Test("reads Apple's content and burst identifiers from the maker note")
    func appleMakerNote() {
        // "Apple iOS\0", version 1, "MM", then a directory with two ASCII entries.
        let content = Array("C3754624-A05F-474D-9F16-E9C47B5F892D\0".utf8)
        let burst = Array("8A3E0F15-2B6C-4C55-9C0B-4E1D2F3A4B5C\0".utf8)
        var note: [UInt8] = Array("Apple iOS\0".utf8) + [0, 1] + Array("MM".utf8)
        let dataStart = 14 + 2 + 2 * 12 + 4
        note += Fixture.be16(2)
        note += Fixture.be16(0x000B) + Fixture.be16(2) + Fixture.be32(UInt32(burst.count)) + Fixture.be32(UInt32(dataStart))
        note += Fixture.be16(0x0011) + Fixture.be16(2) + Fixture.be32(UInt32(content.count)) + Fixture.be32(UInt32(dataStart + burst.count))
        note += Fixture.be32(0) + burst + content
        var m = MediaMetadata(format: .jpeg)
        ExifDecoder.apply(exif: Fixture.tiff(ifd0: [.ascii(0x010F, "Apple")],
                                             exif: [Fixture.Field(tag: 0x927C, type: 7, count: note.count, bytes: note)]), to: &m)
        #expect(m.contentIdentifier == "C3754624-A05F-474D-9F16-E9C47B5F892D")
        #expect(m.burstIdentifier == "8A3E0F15-2B6C-4C55-9C0B-4E1D2F3A4B5C")
    }

    @Test("a block without a TIFF header is ignored with a warning")
    func noHeader() {
        var m = MediaMetadata(format: .jpeg)
        ExifDecoder.apply(exif: Array("Exif\0\0garbage!".utf8), to: &m)
        #expect(m.make == nil)
        #expect(m.warnings.count == 1)
    }
}
