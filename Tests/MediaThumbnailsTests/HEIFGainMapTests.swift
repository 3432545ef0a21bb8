import CHeif
import CorpusSupport
import Foundation
import MediaMetadata
import Testing
@testable import MediaThumbnails

/// HEIF files built in test code around one HEVC picture that ffmpeg's libx265 encodes.
enum HEIFFixture {
    static func be16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    static func be32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (24 - 8 * $0)) & 0xFF) } }
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(8 + payload.count) + Array(type.utf8) + payload }
    static func fullBox(_ type: String, _ payload: [UInt8]) -> [UInt8] { box(type, [0, 0, 0, 0] + payload) }
    static func reference(_ type: String, from: Int, to: [Int]) -> [UInt8] {
        box(type, be16(from) + be16(to.count) + to.flatMap(be16))
    }

    /// An HEVC picture: its parameter sets (VPS, SPS, PPS) and its slices.
    struct Picture {
        var parameterSets: [[UInt8]]
        var slices: [[UInt8]]
        var width: Int, height: Int

        /// The slices as an hvc1 item's data: each with a 4-byte length.
        var itemData: [UInt8] { slices.flatMap { HEIFFixture.be32($0.count) + $0 } }

        /// `hvcC` (ISO/IEC 14496-15 §8.3.3): Main profile, 4:2:0, 8 bits, 4-byte lengths.
        var configuration: [UInt8] {
            var payload: [UInt8] = [1, 0x01, 0x60, 0, 0, 0, 0x90, 0, 0, 0, 0, 0, 90, 0xF0, 0, 0xFC, 0xFD, 0xF8, 0xF8, 0, 0, 0x0F]
            payload.append(UInt8(parameterSets.count))
            for unit in parameterSets {
                payload += [0x80 | (unit[0] >> 1) & 0x3F] + HEIFFixture.be16(1) + HEIFFixture.be16(unit.count) + unit
            }
            return HEIFFixture.box("hvcC", payload)
        }
    }

    /// A one-frame picture of `colour` (as ffmpeg's `color` source names it) from libx265;
    /// nil without ffmpeg or libx265.
    static func picture(colour: String, width: Int, height: Int) -> Picture? {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("heif-fixture-\(UUID().uuidString).hevc").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        guard let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first(where: FileManager.default.isExecutableFile),
              ThumbnailTestSupport.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "color=c=\(colour):s=\(width)x\(height)",
                                                "-frames:v", "1", "-pix_fmt", "yuv420p", "-c:v", "libx265",
                                                "-x265-params", "log-level=none:info=0", "-f", "hevc", "-y", output]),
              let stream = FileManager.default.contents(atPath: output) else { return nil }
        var parameterSets: [[UInt8]] = [], slices: [[UInt8]] = []
        for unit in annexBUnits([UInt8](stream)) where !unit.isEmpty {
            switch (unit[0] >> 1) & 0x3F {
            case 32...34: parameterSets.append(unit)
            case 0...31: slices.append(unit)
            default: break  // SEI and others
            }
        }
        guard parameterSets.count == 3, !slices.isEmpty else { return nil }
        return Picture(parameterSets: parameterSets, slices: slices, width: width, height: height)
    }

    /// The NAL units of an Annex B stream (between `00 00 01` start codes).
    static func annexBUnits(_ stream: [UInt8]) -> [[UInt8]] {
        var starts: [Int] = []
        var i = 0
        while i + 2 < stream.count {
            if stream[i] == 0, stream[i + 1] == 0, stream[i + 2] == 1 { starts.append(i + 3); i += 3 } else { i += 1 }
        }
        return starts.enumerated().map { index, start in
            var end = index + 1 < starts.count ? starts[index + 1] - 3 : stream.count
            while end > start, stream[end - 1] == 0 { end -= 1 }
            return Array(stream[start..<end])
        }
    }

    /// One item of a fixture: its type, its data (nil: `beyondEnd` bytes past the file's
    /// end) and its properties.
    struct Item {
        var type: String
        var data: [UInt8]?
        var properties: [[UInt8]] = []
    }

    /// A HEIC of `items` (ids from 1; item 1 is primary) and `references` (`iref` children).
    static func file(_ items: [Item], references: [[UInt8]]) -> [UInt8] {
        let ftyp = box("ftyp", Array("heic".utf8) + be32(0) + Array("mif1heic".utf8))
        func meta(dataStart: Int) -> [UInt8] {
            var properties: [[UInt8]] = []
            var associations: [UInt8] = []
            var locations: [UInt8] = []
            var offset = dataStart
            for (index, item) in items.enumerated() {
                let indexes = item.properties.map { property -> Int in
                    if let known = properties.firstIndex(of: property) { return known + 1 }
                    properties.append(property)
                    return properties.count
                }
                associations += be16(index + 1) + [UInt8(indexes.count)] + indexes.map { UInt8($0) }
                let length = item.data?.count ?? 4096
                locations += be16(index + 1) + be16(0) + be16(1) + be32(item.data == nil ? 1 << 30 : offset) + be32(length)
                offset += item.data?.count ?? 0
            }
            let infes = items.enumerated().flatMap { index, item in
                box("infe", [2, 0, 0, 0] + be16(index + 1) + be16(0) + Array(item.type.utf8) + [0])
            }
            let hdlr = fullBox("hdlr", be32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 12) + [0])
            let iloc = fullBox("iloc", [0x44, 0x00] + be16(items.count) + locations)
            let iprp = box("iprp", box("ipco", properties.flatMap { $0 }) + fullBox("ipma", be32(items.count) + associations))
            return fullBox("meta", hdlr + fullBox("pitm", be16(1)) + fullBox("iinf", be16(items.count) + infes)
                           + iloc + iprp + fullBox("iref", references.flatMap { $0 }))
        }
        let metaSize = meta(dataStart: 0).count
        let data = items.compactMap(\.data).flatMap { $0 }
        return ftyp + meta(dataStart: ftyp.count + metaSize + 8) + box("mdat", data)
    }

    static func ispe(_ width: Int, _ height: Int) -> [UInt8] { fullBox("ispe", be32(width) + be32(height)) }
    static func auxC(_ urn: String) -> [UInt8] { fullBox("auxC", Array(urn.utf8) + [0]) }

    /// An iOS 18-style HEIC: the primary picture; its HDR gain map, an auxiliary image whose
    /// `auxl` names both the primary and the `tmap` item; and the ISO 21496-1 `tmap` item
    /// derived from the two.
    static func gainMapFile(_ picture: Picture) -> [UInt8] {
        let image = [picture.configuration, ispe(picture.width, picture.height)]
        return file([Item(type: "hvc1", data: picture.itemData, properties: image),
                     Item(type: "hvc1", data: picture.itemData, properties: image + [auxC("urn:com:apple:photo:2020:aux:hdrgainmap")]),
                     Item(type: "tmap", data: [0, 0, 0, 0, 0, 0, 0, 0], properties: [ispe(picture.width, picture.height)])],
                    references: [reference("auxl", from: 2, to: [1, 3]), reference("dimg", from: 3, to: [1, 2])])
    }
}

@Suite("HEIF files libheif 1.15 refuses: iOS 17/18 gain maps, and the file's own thumbnail as a fallback")
struct HEIFGainMapTests {
    static let blue = HEIFFixture.picture(colour: "0x3366cc", width: 128, height: 96)

    /// libheif's answer to reading `bytes` as they are.
    static func libheifRefusal(_ bytes: [UInt8]) throws -> String? {
        let context = try HEIFDecoder.Context()
        return bytes.withUnsafeBufferPointer { data in
            let error = libheif.context_read_from_memory_without_copy(context.pointer, data.baseAddress, data.count, nil)
            return error.code == heif_error_Ok ? nil : error.message.map { String(cString: $0) }
        }
    }

    @Test("only the primary's references remain: auxl keeps the primary, tmap's references go",
          .enabled(if: blue != nil, "needs ffmpeg with libx265 to encode the fixture's picture"))
    func referencesSimplified() throws {
        let bytes = HEIFFixture.gainMapFile(try #require(Self.blue))
        let items = try HEIFItems.read(MemoryByteSource(bytes))
        #expect(items.references.count == 2)
        let kept = try #require(HEIFPrimaryReferences.simplified(items))
        #expect(kept == [HEIFItems.Reference(type: "auxl", from: 2, to: [1])])
        let rewritten = try #require(bytes.withUnsafeBufferPointer { HEIFPrimaryReferences.rewritten($0, items: items) })
        #expect(rewritten.count == bytes.count)
        let reread = try HEIFItems.read(MemoryByteSource(rewritten))
        #expect(reread.references == kept)
        // Every item's data is where it was.
        for id in items.items.keys {
            #expect(try reread.fileRanges(of: id, fileSize: UInt64(rewritten.count))
                    == items.fileRanges(of: id, fileSize: UInt64(bytes.count)))
        }
    }

    @Test("an iOS 18-style HEIC with a gain map decodes, with and without libheif's tile path",
          .enabled(if: blue != nil, "needs ffmpeg with libx265 to encode the fixture's picture"))
    func gainMapFileDecodes() throws {
        let bytes = HEIFFixture.gainMapFile(try #require(Self.blue))
        // The fixture is the file libheif 1.15 refuses; a newer libheif reads it as it is.
        if let refusal = try Self.libheifRefusal(bytes) {
            #expect(refusal.contains("auxiliary image references"), "\(refusal)")
        }
        for direct in [true, false] {
            let image = try HEIFDecodingTests.decode(bytes, size: 64, direct: direct)
            #expect(image.width == 64 && image.height == 48)
            let mean = ThumbnailTestSupport.meanColour(image)
            for (channel, expected) in zip(mean, [0x33, 0x66, 0xCC]) {
                #expect(abs(channel - Double(expected)) < 6, "direct: \(direct), mean \(mean)")
            }
        }
        let thumbnail = try ThumbnailGenerator.thumbnail(of: MemoryByteSource(bytes), format: .heic, orientation: 1,
                                                        request: ThumbnailRequest(maxPixelSize: 64))
        #expect(thumbnail.fallbackReason == nil)
        #expect(thumbnail.path == .fullDecode)
    }

    @Test("a HEIC whose picture libheif cannot decode gets its thumbnail item, and says why",
          .enabled(if: blue != nil, "needs ffmpeg with libx265 to encode the fixture's picture"))
    func thumbnailItemFallback() throws {
        let picture = try #require(Self.blue)
        // The primary's data lies beyond the end of the file.
        let bytes = HEIFFixture.file([
            HEIFFixture.Item(type: "hvc1", data: nil, properties: [picture.configuration, HEIFFixture.ispe(256, 192)]),
            HEIFFixture.Item(type: "hvc1", data: picture.itemData,
                             properties: [picture.configuration, HEIFFixture.ispe(picture.width, picture.height)]),
        ], references: [HEIFFixture.reference("thmb", from: 2, to: [1])])
        let thumbnail = try ThumbnailGenerator.thumbnail(of: MemoryByteSource(bytes), format: .heic, orientation: 1,
                                                        request: ThumbnailRequest(maxPixelSize: 256))
        #expect(thumbnail.path == .heifThumbnailItem)
        #expect(thumbnail.width == 128 && thumbnail.height == 96)
        let reason = try #require(thumbnail.fallbackReason)
        #expect(reason.contains("128×96 thumbnail item"), "\(reason)")
        let mean = ThumbnailTestSupport.meanColour(try ThumbnailTestSupport.pixels(ofJPEG: thumbnail.data))
        for (channel, expected) in zip(mean, [0x33, 0x66, 0xCC]) { #expect(abs(channel - Double(expected)) < 6, "\(mean)") }
    }

    @Test("a HEIC without a thumbnail item whose picture cannot be decoded gets its EXIF thumbnail, and says why",
          .enabled(if: blue != nil, "needs ffmpeg with libx265 to encode the fixture's picture"))
    func exifThumbnailFallback() throws {
        let picture = try #require(Self.blue)
        let red = PixelBuffer(width: 64, height: 48, channels: 3, pixels: (0..<(64 * 48)).flatMap { _ in [200, 30, 30] as [UInt8] })
        let jpeg = try ThumbnailEncoder.encode(red, as: .jpeg(quality: 95))
        // A big-endian TIFF block: IFD0 with Orientation, IFD1 pointing at the JPEG (at 56).
        let be16 = HEIFFixture.be16, be32 = HEIFFixture.be32
        let ifd0 = be16(1) + be16(0x0112) + be16(3) + be32(1) + be16(1) + be16(0) + be32(26)
        let ifd1 = be16(2) + be16(0x0201) + be16(4) + be32(1) + be32(56) + be16(0x0202) + be16(4) + be32(1) + be32(jpeg.count) + be32(0)
        let tiff = Array("MM".utf8) + be16(42) + be32(8) + ifd0 + ifd1 + jpeg
        let bytes = HEIFFixture.file([
            HEIFFixture.Item(type: "hvc1", data: nil, properties: [picture.configuration, HEIFFixture.ispe(256, 192)]),
            HEIFFixture.Item(type: "Exif", data: be32(0) + tiff),
        ], references: [HEIFFixture.reference("cdsc", from: 2, to: [1])])
        let thumbnail = try ThumbnailGenerator.thumbnail(of: MemoryByteSource(bytes), format: .heic, orientation: 1,
                                                        request: ThumbnailRequest(maxPixelSize: 256))
        #expect(thumbnail.path == .embeddedExifThumbnail)
        #expect(thumbnail.width == 64 && thumbnail.height == 48)
        let reason = try #require(thumbnail.fallbackReason)
        #expect(reason.contains("64×48 EXIF thumbnail"), "\(reason)")
        let mean = ThumbnailTestSupport.meanColour(try ThumbnailTestSupport.pixels(ofJPEG: thumbnail.data))
        for (channel, expected) in zip(mean, [200, 30, 30]) { #expect(abs(channel - Double(expected)) < 6, "\(mean)") }
    }

    @Test("a HEIC without a thumbnail whose picture cannot be decoded is still an error",
          .enabled(if: blue != nil, "needs ffmpeg with libx265 to encode the fixture's picture"))
    func noFallbackWithoutThumbnail() throws {
        let picture = try #require(Self.blue)
        let bytes = HEIFFixture.file([
            HEIFFixture.Item(type: "hvc1", data: nil, properties: [picture.configuration, HEIFFixture.ispe(256, 192)]),
        ], references: [])
        #expect(throws: ThumbnailError.self) {
            try ThumbnailGenerator.thumbnail(of: MemoryByteSource(bytes), format: .heic, orientation: 1,
                                             request: ThumbnailRequest(maxPixelSize: 256))
        }
    }

    static let iPhoneGainMapHEIC = "ente-test-fixtures/ml/indexing/v1/files/IMG_8606_rotate_90_cw_contains_text.HEIC"

    @Test("the corpus's iOS HEIC with a gain map decodes upright, as its own thumbnail item shows it",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusGainMapHEIC() throws {
        let path = try #require(ThumbnailTestSupport.path(Self.iPhoneGainMapHEIC))
        let reading = try #require(Corpus.exiftool[Self.iPhoneGainMapHEIC])
        let width = Int(try #require(reading["File:ImageWidth"]?.number))
        let height = Int(try #require(reading["File:ImageHeight"]?.number))
        let orientation = Int(try #require(reading["IFD0:Orientation"]?.number))
        let request = ThumbnailRequest(maxPixelSize: 256)
        let thumbnail = try ThumbnailGenerator.thumbnail(ofFileAt: path, request: request)
        #expect(thumbnail.fallbackReason == nil)
        let displayed = orientation >= 5 ? (height, width) : (width, height)
        let expected = ThumbnailGeometry.scaledSize(width: displayed.0, height: displayed.1, request: request)
        #expect(thumbnail.width == expected.width && thumbnail.height == expected.height)
        // The file's thumbnail item, through libheif (another decode of another picture), agrees.
        let small = try #require(try ThumbnailGenerator.embeddedThumbnail(ofFileAt: path, request: request))
        #expect(small.width == thumbnail.width && small.height == thumbnail.height)
        let difference = ThumbnailTestSupport.meanAbsoluteDifference(try ThumbnailTestSupport.pixels(ofJPEG: thumbnail.data),
                                                                     try ThumbnailTestSupport.pixels(ofJPEG: small.data))
        #expect(difference < 12, "mean difference \(difference)")
    }
}
