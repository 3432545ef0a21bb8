import Foundation
@testable import MediaMetadata
import Testing

private typealias F = ISOBMFFFixture

@Suite("ISO-BMFF reader")
struct ISOBMFFReaderTests {
    @Test("reads a rotated phone movie: duration, coded size, orientation, codec, rate, audio, Apple keys")
    func readsPhoneMovie() throws {
        // Given a QuickTime movie built in memory
        let reading = try ISOBMFFReader.read(MemoryByteSource(F.phoneMovie()), format: .quickTime)
        let m = reading.metadata
        // Then
        #expect(m.durationSeconds == 2.5)
        #expect(m.pixelWidth == 1920 && m.pixelHeight == 1080)
        #expect(m.orientation == 6)
        #expect(m.displaySize?.width == 1080 && m.displaySize?.height == 1920)
        #expect(m.videoCodec == "h264")
        #expect(m.frameRate == 30)
        #expect(m.hasAudio == true)
        #expect(m.hasStillImageTime == false)
        #expect(m.make == "Apple")
        #expect(m.contentIdentifier == "5B2CA818-E2D8-6F65-05F3-19E79B95F323")
        #expect(m.captureDate?.iso8601 == "2023-11-01T15:11:17+01:00")
        #expect(m.location == GeoLocation(latitude: 48.8584, longitude: 2.2945, altitude: 35))
        #expect(m.warnings.isEmpty)
    }

    @Test("falls back to the mvhd creation time in UTC when there is no creationdate key")
    func mvhdDateFallback() throws {
        let moov = F.box("moov", F.mvhd(timescale: 1000, duration: 1000, created: 3_786_000_000))
        let m = try ISOBMFFReader.read(MemoryByteSource(F.ftyp("isom") + moov), format: .mp4).metadata
        // 3_786_000_000 s after 1904-01-01 is 2023-12-21T10:40:00Z.
        #expect(m.captureDate?.iso8601 == "2023-12-21T10:40:00Z")
        #expect(m.durationSeconds == 1)
    }

    @Test("reaches a moov behind a 5 GB mdat by seeking, reading under 1 MB")
    func moovAtTheEndOfAHugeFile() throws {
        // Given: ftyp, an mdat with a 64-bit size of 5 GB, then the moov
        let ftyp = F.ftyp("isom")
        let mdatSize: UInt64 = 5 << 30
        let mdatHeader = F.be32(1) + F.fourCC("mdat") + F.be64(mdatSize)
        let moov = F.box("moov", F.mvhd(timescale: 600, duration: 6000)
                         + F.videoTrak(matrix: F.identityMatrix, width: 640, height: 480, timescale: 600, frames: 300, delta: 20))
        let source = CountingByteSource(head: ftyp + mdatHeader, zeros: mdatSize - UInt64(mdatHeader.count), tail: moov)
        // When
        let m = try ISOBMFFReader.read(source, format: .mp4).metadata
        // Then
        #expect(m.durationSeconds == 10)
        #expect(m.pixelWidth == 640)
        #expect(source.bytesRead < 1 << 20)
    }

    @Test("reads a HEIF's primary size, irot as orientation, auxiliary images, Exif and XMP items")
    func readsHEIF() throws {
        let exifPayload: [UInt8] = F.be32(6) + Array("Exif\0\0".utf8) + [0x4D, 0x4D, 0x00, 0x2A] + F.be32(8)
        let xmpPayload = Array("<x:xmpmeta xmlns:x='adobe:ns:meta/'></x:xmpmeta>".utf8)
        func file(dataStart: Int) -> [UInt8] {
            let meta = F.heifMeta(
                items: [(1, "hvc1", nil), (2, "Exif", nil), (3, "mime", "application/rdf+xml"), (4, "hvc1", nil), (5, "hvc1", nil)],
                iloc: F.iloc([(2, dataStart, exifPayload.count), (3, dataStart + exifPayload.count, xmpPayload.count)]),
                properties: [F.ispe(4032, 3024), F.irot(3), F.auxC("urn:com:apple:photo:2018:aux:portraiteffectsmatte"),
                             F.auxC("urn:com:apple:photo:2020:aux:hdrgainmap")],
                associations: [(1, [1, 2]), (4, [3]), (5, [4])],
                references: [F.reference("cdsc", from: 2, to: [1]), F.reference("auxl", from: 4, to: [1]),
                             F.reference("auxl", from: 5, to: [1])])
            return F.ftyp("heic") + meta + F.box("mdat", exifPayload + xmpPayload)
        }
        // The data offsets depend on the meta size, which does not depend on them.
        let probe = file(dataStart: 0)
        let bytes = file(dataStart: probe.count - exifPayload.count - xmpPayload.count)
        let reading = try ISOBMFFReader.read(MemoryByteSource(bytes), format: .heic)
        let m = reading.metadata
        #expect(m.pixelWidth == 4032 && m.pixelHeight == 3024)
        #expect(m.orientation == 6)
        #expect(m.hasPortraitMatte == true && m.hasGainMap == true && m.hasDepth == false)
        #expect(reading.exif == [0x4D, 0x4D, 0x00, 0x2A] + F.be32(8))
        #expect(reading.xmp == xmpPayload)
        #expect(m.warnings.isEmpty)
    }

    @Test("maps irot and imir to EXIF orientations", arguments: [
        ([HEIFProperty](), 1), ([.rotation(anticlockwiseQuarterTurns: 1)], 8), ([.rotation(anticlockwiseQuarterTurns: 2)], 3),
        ([.rotation(anticlockwiseQuarterTurns: 3)], 6), ([.mirror(axis: 1)], 2), ([.mirror(axis: 0)], 4),
        ([.rotation(anticlockwiseQuarterTurns: 1), .mirror(axis: 0)], 5),
        ([.rotation(anticlockwiseQuarterTurns: 3), .mirror(axis: 0)], 7),
    ])
    func heifOrientation(transforms: [HEIFProperty], expected: Int) {
        #expect(HEIFItems.orientation(applying: transforms) == expected)
    }

    @Test("maps track matrices to EXIF orientations")
    func trackMatrixOrientation() {
        let one: Int32 = 0x10000
        #expect(MovieBoxParser.orientation(a: one, b: 0, c: 0, d: one) == 1)
        #expect(MovieBoxParser.orientation(a: 0, b: one, c: -one, d: 0) == 6)
        #expect(MovieBoxParser.orientation(a: -one, b: 0, c: 0, d: -one) == 3)
        #expect(MovieBoxParser.orientation(a: 0, b: -one, c: one, d: 0) == 8)
    }

    @Test("parses ISO 6709 in degrees, degrees-minutes and degrees-minutes-seconds")
    func iso6709() {
        let degrees = QuickTimeValues.location(iso6709: "+48.8584+002.2945+035.000/")
        #expect(degrees?.latitude == 48.8584 && degrees?.longitude == 2.2945 && degrees?.altitude == 35)
        let minutes = QuickTimeValues.location(iso6709: "-3351.50+15112.50/")
        #expect(abs((minutes?.latitude ?? 0) + 33.858333) < 1e-5 && abs((minutes?.longitude ?? 0) - 151.208333) < 1e-5)
        let seconds = QuickTimeValues.location(iso6709: "+404530.0-0735930.0/")
        #expect(abs((seconds?.latitude ?? 0) - 40.758333) < 1e-5 && abs((seconds?.longitude ?? 0) + 73.991667) < 1e-5)
        #expect(QuickTimeValues.location(iso6709: "+00.0000+000.0000/") == nil)
        #expect(QuickTimeValues.location(iso6709: "garbage") == nil)
    }

    @Test("parses QuickTime ISO 8601 dates with and without offsets")
    func iso8601() {
        #expect(QuickTimeValues.date(iso8601: "2019-02-12T15:27:12+0800")?.iso8601 == "2019-02-12T15:27:12+08:00")
        #expect(QuickTimeValues.date(iso8601: "2023-07-14T21:30:00.250Z")?.iso8601 == "2023-07-14T21:30:00.250Z")
        #expect(QuickTimeValues.date(iso8601: "2020-11-20T15:04:02-0500")?.utcOffsetSeconds == -18000)
        #expect(QuickTimeValues.date(iso8601: "2011-05-10 12:30:00")?.utcOffsetSeconds == nil)
        #expect(QuickTimeValues.date(iso8601: "2011") == nil)
    }

    @Test("strips the Exif item's offset prefix to the TIFF header")
    func exifPrefix() {
        #expect(ISOBMFFReader.exifBlock([0, 0, 0, 0, 0x49, 0x49, 0x2A, 0, 8, 0, 0, 0]) == [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0])
        #expect(ISOBMFFReader.exifBlock([0, 0, 0, 6] + Array("Exif\0\0".utf8) + [0x4D, 0x4D, 0, 0x2A]) == [0x4D, 0x4D, 0, 0x2A])
        #expect(ISOBMFFReader.exifBlock([0, 0, 0]) == nil)
    }
}

@Suite("ISO-BMFF reader on hostile input")
struct ISOBMFFHostileInputTests {
    /// Reads, and requires either a result or a MetadataError with a sentence. The time
    /// bound only catches hangs: speed is measured by the benchmark, not here.
    private func readHostile(_ bytes: [UInt8], format: MediaFormat = .mp4) -> Result<ContainerReading, MetadataError> {
        let started = Date()
        defer { #expect(Date().timeIntervalSince(started) < 30) }
        do {
            return .success(try ISOBMFFReader.read(MemoryByteSource(bytes), format: format))
        } catch let error as MetadataError {
            #expect(!error.description.isEmpty)
            return .failure(error)
        } catch {
            Issue.record("unexpected error type: \(error)")
            return .failure(.io("\(error)"))
        }
    }

    private let moovWithHeader = F.box("moov", F.mvhd(timescale: 1000, duration: 4000))

    @Test("a box of size 0 runs to the end of the file")
    func sizeZero() throws {
        let moov = F.be32(0) + F.fourCC("moov") + F.mvhd(timescale: 1000, duration: 4000)
        let reading = try readHostile(F.ftyp("isom") + moov).get()
        #expect(reading.metadata.durationSeconds == 4)
    }

    @Test("a 64-bit size past the end keeps what came before, with a warning")
    func hugeLargeSize() throws {
        let mdat = F.be32(1) + F.fourCC("mdat") + F.be64(.max) + [1, 2, 3]
        let reading = try readHostile(F.ftyp("isom") + moovWithHeader + mdat).get()
        #expect(reading.metadata.durationSeconds == 4)
        #expect(reading.metadata.warnings.contains { $0.contains("'mdat'") })
    }

    @Test("a moov declaring 0xFFFFFFFF bytes is read as far as it goes")
    func allOnesSize() throws {
        let moov = F.be32(-1 as Int32) + F.fourCC("moov") + F.mvhd(timescale: 1000, duration: 4000)
        let reading = try readHostile(F.ftyp("isom") + moov).get()
        #expect(reading.metadata.durationSeconds == 4)
        #expect(!reading.metadata.warnings.isEmpty)
    }

    @Test("a box smaller than its header stops the walk with a readable error")
    func sizeSmallerThanHeader() {
        let result = readHostile(F.ftyp("isom") + F.be32(4) + F.fourCC("moov") + [UInt8](repeating: 0, count: 40))
        guard case .failure(let error) = result else { Issue.record("expected an error"); return }
        #expect(error.description.contains("moov") || error.description.contains("box"))
    }

    @Test("nesting deeper than the cap is skipped, not followed")
    func deepNesting() throws {
        var nested = F.box("free", [])
        for _ in 0..<200 { nested = F.box("moov", nested) }
        var walker = BoxReader(source: MemoryByteSource(nested))
        var level = try walker.boxes(from: 0, to: UInt64(nested.count), depth: 0, in: "the file")
        var depth = 0
        while let box = level.first, depth < 300 {
            depth += 1
            level = try walker.children(of: box, depth: depth)
        }
        #expect(depth <= BoxReader.maxDepth + 1)
        #expect(walker.warnings.contains { $0.contains("deeper") })
    }

    @Test("self-referencing and cyclic item references end quickly")
    func referenceLoop() throws {
        let meta = F.heifMeta(items: [(1, "grid", nil), (2, "hvc1", nil)], iloc: F.iloc([]),
                              properties: [F.ispe(100, 50), F.auxC("urn:mpeg:hevc:2015:auxid:2")],
                              associations: [(1, [1]), (2, [2])],
                              references: [F.reference("dimg", from: 1, to: [1, 2]), F.reference("auxl", from: 2, to: [1]),
                                           F.reference("auxl", from: 1, to: [2])])
        let reading = try readHostile(F.ftyp("heic") + meta, format: .heic).get()
        #expect(reading.metadata.pixelWidth == 100)
        #expect(reading.metadata.hasDepth == true)
    }

    @Test("an iloc with 65535 items pointing past the end gives a warning, not a crash")
    func ilocPastTheEnd() throws {
        let entries = (1...65535).map { (id: $0, offset: 0x7FFF_FFF0, length: 100) }
        let meta = F.heifMeta(items: [(1, "hvc1", nil), (2, "Exif", nil), (3, "mime", "application/rdf+xml")],
                              iloc: F.iloc(entries), properties: [F.ispe(64, 48)], associations: [(1, [1])])
        let reading = try readHostile(F.ftyp("heic") + meta, format: .heic).get()
        #expect(reading.metadata.pixelWidth == 64)
        #expect(reading.exif == nil && reading.xmp == nil)
        #expect(reading.metadata.warnings.contains { $0.contains("Exif item") })
    }

    @Test("an iloc whose count exceeds its bytes is read as far as it goes")
    func ilocCountLies() throws {
        let iloc = F.fullBox("iloc", [0x44, 0x00] + F.be16(65535) + F.be16(2) + F.be16(0) + F.be16(1))
        let meta = F.heifMeta(items: [(1, "hvc1", nil), (2, "Exif", nil)], iloc: iloc,
                              properties: [F.ispe(64, 48)], associations: [(1, [1])])
        let reading = try readHostile(F.ftyp("heic") + meta, format: .heic).get()
        #expect(reading.metadata.pixelWidth == 64)
        #expect(reading.metadata.warnings.contains { $0.contains("iloc") })
    }

    @Test("every truncation of a movie ends as partial data or a readable error")
    func truncatedMovie() {
        let movie = F.phoneMovie()
        for length in stride(from: 0, through: movie.count, by: 7) {
            _ = readHostile(Array(movie.prefix(length)), format: .quickTime)
        }
        // Cut inside the sample table: the movie header is still read.
        let moovStart = F.ftyp("qt  ").count
        let cut = Array(movie.prefix(moovStart + 8 + 108 + 150))
        if case .success(let reading) = readHostile(cut, format: .quickTime) {
            #expect(reading.metadata.durationSeconds == 2.5)
            #expect(!reading.metadata.warnings.isEmpty)
        } else {
            Issue.record("a movie cut inside its track should still give its duration")
        }
    }

    @Test("random bytes and flipped bytes never crash the reader")
    func fuzzedBytes() {
        var generator = SystemRandomNumberGenerator()
        let movie = F.phoneMovie()
        for _ in 0..<300 {
            var bytes = movie
            for _ in 0..<8 {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            _ = readHostile(bytes, format: .quickTime)
        }
        _ = readHostile((0..<512).map { _ in UInt8.random(in: 0...255, using: &generator) })
        _ = readHostile([])
    }
}
