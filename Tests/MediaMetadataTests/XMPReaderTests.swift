import CorpusSupport
import Foundation
import Testing
@testable import MediaMetadata

/// The standard XMP packet of a JPEG (APP1 with `http://ns.adobe.com/xap/1.0/\0`).
/// Test-local: the JPEG reader is someone else's; this only walks markers up to SOS.
func jpegXMPPacket(_ bytes: [UInt8]) -> [UInt8]? {
    let header = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
    var i = 2
    while i + 4 <= bytes.count, bytes[i] == 0xFF {
        let marker = bytes[i + 1]
        if marker == 0xDA || marker == 0xD9 { return nil }
        if marker == 0xFF { i += 1; continue }
        let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
        guard length >= 2, i + 2 + length <= bytes.count else { return nil }
        let payload = bytes[(i + 4)..<(i + 2 + length)]
        if marker == 0xE1, payload.starts(with: header) { return Array(payload.dropFirst(header.count)) }
        i += 2 + length
    }
    return nil
}

/// An XMP packet as a file would carry it.
func xmpPacket(_ description: String, extraNamespaces: String = "") -> [UInt8] {
    Array("""
    <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
    <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" \(extraNamespaces)>
    \(description)
    </rdf:RDF></x:xmpmeta><?xpacket end="w"?>
    """.utf8)
}

extension String {
    /// nil for an empty string: an empty reference value is no value.
    var formatsNonEmpty: String? { isEmpty ? nil : self }
}

@Suite("XMP reader")
struct XMPReaderTests {
    /// Every packet we can reach in the corpus without the other readers: sidecars, JPEG
    /// APP1 (test-local scanner), PNG, WebP and GIF (our readers), plus the synthetic cases.
    static func corpusPackets() -> [(path: String, packet: [UInt8], exiftool: [String: JSONValue])] {
        var result: [(String, [UInt8], [String: JSONValue])] = []
        for file in formatsCorpusFiles(ofTypes: ["XMP", "JPEG", "PNG", "WEBP", "Extended WEBP", "GIF"]) {
            guard let type = Corpus.manifest.first(where: { $0["path"]?.string == file.path })?["exiftool_file_type"]?.string
            else { continue }
            var packet: [UInt8]?
            switch type {
            case "XMP":
                // Sidecars go through readSidecar below; the packet here is the file itself.
                packet = (try? FileByteSource(path: file.url.path)).flatMap { try? $0.read(at: 0, count: XMPReader.maxPacketBytes) }
            case "JPEG":
                packet = (try? Data(contentsOf: file.url)).flatMap { jpegXMPPacket(Array($0)) }
            case "PNG":
                packet = (try? FileByteSource(path: file.url.path)).flatMap { try? PNGReader.read($0).xmp }
            case "GIF":
                packet = (try? FileByteSource(path: file.url.path)).flatMap { try? GIFReader.read($0).xmp }
            default:
                packet = (try? FileByteSource(path: file.url.path)).flatMap { try? RIFFReader.readWebP($0).xmp }
            }
            if let packet { result.append((file.path, packet, file.exiftool)) }
        }
        if let synthetic = Corpus.synthetic {
            for name in ["panorama/PANO_7009.jpg", "panorama/sphere_7010.jpg", "motion-photo/PXL_20240101_120000000.MP.jpg"] {
                if let data = try? Data(contentsOf: synthetic.appendingPathComponent(name)), let packet = jpegXMPPacket(Array(data)) {
                    result.append(("synthetic/" + name, packet, Corpus.syntheticExiftool[name] ?? [:]))
                }
            }
        }
        return result
    }

    @Test("a GPS position inside a structure (IPTC's LocationCreated) is not the photo's own")
    func nestedStructureFieldsAreNotTopLevel() {
        let packet = Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:tiff="http://ns.adobe.com/tiff/1.0/"
              xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/" tiff:Make="Canon">
              <Iptc4xmpExt:LocationCreated><rdf:Bag><rdf:li rdf:parseType="Resource">
                <exif:GPSLatitude>48,16.5N</exif:GPSLatitude><exif:GPSLongitude>16,20.28E</exif:GPSLongitude>
              </rdf:li></rdf:Bag></Iptc4xmpExt:LocationCreated>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """.utf8)
        let properties = XMPReader.parse(packet)
        #expect(properties.make == "Canon")
        #expect(properties.location == nil)
    }

    @Test("reads dates, camera, orientation, GPS, panorama and motion-photo fields like exiftool's XMP-* tags",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusAgreement() throws {
        var tally = FormatsAgreementTally("XMP vs exiftool")
        let packets = Self.corpusPackets()
        print("XMP packets reached: \(packets.count)")
        #expect(packets.count >= 60)
        for (path, packet, tags) in packets {
            let x = XMPReader.parse(packet)
            func date(_ key: String, _ ours: CaptureDate?) {
                guard let text = tags[key]?.string else { return }
                tally.compare(key, path, ours: ours?.iso8601, reference: XMPValue.date(text)?.iso8601)
            }
            date("XMP-exif:DateTimeOriginal", x.dateTimeOriginal)
            date("XMP-xmp:CreateDate", x.createDate)
            date("XMP-photoshop:DateCreated", x.dateCreated)
            tally.compare("XMP-tiff:Make", path, ours: x.make, reference: tags["XMP-tiff:Make"]?.string?.trimmingSpacesAndNULs())
            tally.compare("XMP-tiff:Model", path, ours: x.model, reference: tags["XMP-tiff:Model"]?.string?.trimmingSpacesAndNULs())
            tally.compare("XMP-tiff:Orientation", path, ours: x.orientation, reference: tags["XMP-tiff:Orientation"]?.number.map { Int($0) })
            for (key, ours) in [("XMP-exif:GPSLatitude", x.location?.latitude), ("XMP-exif:GPSLongitude", x.location?.longitude)] {
                if let reference = tags[key]?.number {
                    tally.record(key, path, agree: ours.map { abs($0 - reference) < 1e-5 } ?? false, detail: "ours \(ours ?? .nan), exiftool \(reference)")
                }
            }
            tally.compare("XMP-GPano:ProjectionType", path, ours: x.projectionType, reference: tags["XMP-GPano:ProjectionType"]?.string)
            if case .bool(let b)? = tags["XMP-GPano:UsePanoramaViewer"] {
                tally.compare("XMP-GPano:UsePanoramaViewer", path, ours: x.usePanoramaViewer, reference: b)
            }
            tally.compare("XMP-GCamera:MotionPhoto", path, ours: x.motionPhoto, reference: tags["XMP-GCamera:MotionPhoto"]?.number.map { Int($0) })
            tally.compare("XMP-GCamera:MotionPhotoVersion", path, ours: x.motionPhotoVersion,
                          reference: tags["XMP-GCamera:MotionPhotoVersion"]?.number.map { Int($0) })
            tally.compare("XMP-GCamera:MotionPhotoPresentationTimestampUs", path, ours: x.motionPhotoPresentationTimestampUs,
                          reference: tags["XMP-GCamera:MotionPhotoPresentationTimestampUs"]?.number.map { Int64($0) })
            tally.compare("XMP-GCamera:MicroVideoOffset", path, ours: x.microVideoOffset,
                          reference: tags["XMP-GCamera:MicroVideoOffset"]?.number.map { Int64($0) })
            func list(_ key: String) -> [String]? {
                switch tags[key] {
                case .array(let items)?: return items.compactMap { $0.string }
                case let value?: return value.string.map { [$0] }
                case nil: return nil
                }
            }
            // exiftool.json keeps one value per tag name (JSON objects cannot repeat a key),
            // so only the first value of each item field (exiftool flattens the items' fields into
            // lists, skipping items without that field) can be compared.
            tally.compare("XMP-Container:DirectoryItemMime", path, ours: x.containerItems.first?.mime,
                          reference: list("XMP-Container:DirectoryItemMime")?.first)
            tally.compare("XMP-Container:DirectoryItemSemantic", path, ours: x.containerItems.first?.semantic,
                          reference: list("XMP-Container:DirectoryItemSemantic")?.first)
            tally.compare("XMP-Container:DirectoryItemLength", path, ours: x.containerItems.compactMap(\.length).first.map { String($0) },
                          reference: list("XMP-Container:DirectoryItemLength")?.first)
            tally.compare("XMP-exif:ExifImageWidth", path, ours: x.pixelXDimension, reference: tags["XMP-exif:ExifImageWidth"]?.number.map { Int($0) })
            tally.compare("XMP-photoshop:SidecarForExtension", path, ours: x.sidecarForExtension,
                          reference: tags["XMP-photoshop:SidecarForExtension"]?.string)
            tally.compare("XMP-xmp:Rating", path, ours: x.rating, reference: tags["XMP-xmp:Rating"]?.number)
            tally.compare("XMP-dc:Title", path, ours: x.title, reference: tags["XMP-dc:Title"]?.string?.trimmingSpacesAndNULs().formatsNonEmpty)
            tally.compare("XMP-dc:Description", path, ours: x.description, reference: tags["XMP-dc:Description"]?.string?.trimmingSpacesAndNULs().formatsNonEmpty)
        }
        tally.printTable()
        tally.expectAgreement(deliberate: [
            "photoprism/internal/meta/testdata/photoshop.xmp":
                "tiff:Orientation is 0, which is no orientation; we report none rather than an impossible value",
        ])
    }

    @Test("the synthetic motion photo and panoramas read as EXPECTED.json says",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func syntheticCases() throws {
        let synthetic = try #require(Corpus.synthetic)
        func packet(_ name: String) throws -> XMPProperties {
            let data = try Data(contentsOf: synthetic.appendingPathComponent(name))
            return XMPReader.parse(try #require(jpegXMPPacket(Array(data))))
        }
        let motion = try packet("motion-photo/PXL_20240101_120000000.MP.jpg")
        #expect(motion.isMotionPhoto)
        #expect(motion.motionPhotoPresentationTimestampUs == 500_000)
        // exiftool -X lists both items; exiftool.json can hold only the first.
        #expect(motion.containerItems.map(\.semantic) == ["Primary", "MotionPhoto"])
        #expect(motion.containerItems.last?.mime == "video/mp4")
        for name in ["panorama/PANO_7009.jpg", "panorama/sphere_7010.jpg"] {
            let data = try Data(contentsOf: synthetic.appendingPathComponent(name))
            // One of the two panoramas is marked by its name and aspect only, without XMP.
            if let xmp = jpegXMPPacket(Array(data)) { #expect(XMPReader.parse(xmp).isPanorama, "\(name)") }
        }
    }

    @Test("reads a sidecar's camera, date and GPS like exiftool", .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func sidecar() throws {
        let path = "photoprism/internal/meta/testdata/iphone_7.xmp"
        let media = try #require(Corpus.media)
        let tags = try #require(Corpus.exiftool[path])
        let x = try XMPReader.readSidecar(FileByteSource(path: media.appendingPathComponent(path).path))
        #expect(x.make == tags["XMP-tiff:Make"]?.string)
        #expect(x.model == tags["XMP-tiff:Model"]?.string)
        #expect(x.orientation == tags["XMP-tiff:Orientation"]?.number.map { Int($0) })
        #expect(x.dateTimeOriginal?.iso8601 == tags["XMP-exif:DateTimeOriginal"]?.string.flatMap(XMPValue.date)?.iso8601)
        let latitude = try #require(tags["XMP-exif:GPSLatitude"]?.number)
        #expect(abs((x.location?.latitude ?? 0) - latitude) < 1e-6)
        var metadata = MediaMetadata(format: .jpeg)
        x.apply(to: &metadata)
        #expect(metadata.location?.isPlausible == true)
    }

    @Test("reads UTF-16 packets")
    func utf16() {
        let text = "<rdf:Description xmlns:tiff='http://ns.adobe.com/tiff/1.0/' tiff:Make='Sixteen'/>"
        let bigEndian: [UInt8] = [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let littleEndian: [UInt8] = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(XMPReader.parse(bigEndian).make == "Sixteen")
        #expect(XMPReader.parse(littleEndian).make == "Sixteen")
    }

    @Test("resolves namespaces by URI whatever the prefix, in attributes and elements")
    func prefixesAreResolved() {
        let packet = xmpPacket("""
            <rdf:Description rdf:about="" xmlns:cam="http://ns.google.com/photos/1.0/camera/"
                xmlns:t="http://ns.adobe.com/tiff/1.0/" xmlns:e="http://ns.adobe.com/exif/1.0/"
                cam:MotionPhoto="1" cam:MotionPhotoPresentationTimestampUs="1234" t:Orientation="6">
              <t:Make>Google</t:Make>
              <e:GPSLatitude>48,51.504N</e:GPSLatitude><e:GPSLongitude>2,17.4W</e:GPSLongitude>
              <e:DateTimeOriginal>2024-01-01T12:00:00.250+01:00</e:DateTimeOriginal>
            </rdf:Description>
            """)
        let x = XMPReader.parse(packet)
        #expect(x.motionPhoto == 1)
        #expect(x.motionPhotoPresentationTimestampUs == 1234)
        #expect(x.orientation == 6)
        #expect(x.make == "Google")
        #expect(abs((x.location?.latitude ?? 0) - 48.8584) < 1e-9)
        #expect(abs((x.location?.longitude ?? 0) + 2.29) < 1e-9)
        #expect(x.dateTimeOriginal?.iso8601 == "2024-01-01T12:00:00.250+01:00")
        #expect(x.warnings.isEmpty)
    }

    @Test("reads a Container:Directory written with Container:Item attributes and with parseType Resource")
    func containerDirectory() {
        let ns = """
            xmlns:Container="http://ns.google.com/photos/1.0/container/" xmlns:Item="http://ns.google.com/photos/1.0/container/item/"
            """
        let attributes = xmpPacket("""
            <rdf:Description rdf:about="" \(ns)><Container:Directory><rdf:Seq>
              <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:Length="0" Item:Padding="0"/></rdf:li>
              <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="123456"/></rdf:li>
            </rdf:Seq></Container:Directory></rdf:Description>
            """)
        let a = XMPReader.parse(attributes)
        #expect(a.containerItems == [XMPContainerItem(mime: "image/jpeg", semantic: "Primary", length: 0, padding: 0),
                                     XMPContainerItem(mime: "video/mp4", semantic: "MotionPhoto", length: 123_456)])
        #expect(a.isMotionPhoto)
        let elements = xmpPacket("""
            <rdf:Description rdf:about="" \(ns)><Container:Directory><rdf:Seq>
              <rdf:li rdf:parseType="Resource"><Container:Item rdf:parseType="Resource"><Item:Mime>video/mp4</Item:Mime><Item:Semantic>MotionPhoto</Item:Semantic><Item:Length>99</Item:Length></Container:Item></rdf:li>
            </rdf:Seq></Container:Directory></rdf:Description>
            """)
        #expect(XMPReader.parse(elements).containerItems == [XMPContainerItem(mime: "video/mp4", semantic: "MotionPhoto", length: 99)])
    }

    @Test("reads alt-lang titles (x-default first), ratings, sidecar extension and old MicroVideo fields")
    func otherFields() {
        let packet = xmpPacket("""
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
               xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"
               xmp:Rating="4" photoshop:SidecarForExtension="CR3" GCamera:MicroVideo="1" GCamera:MicroVideoOffset="2000000"
               GCamera:MicroVideoPresentationTimestampUs="766000" photoshop:DateCreated="2020-05-06">
              <dc:title><rdf:Alt><rdf:li xml:lang="de">Titel</rdf:li><rdf:li xml:lang="x-default">Title &amp; more</rdf:li></rdf:Alt></dc:title>
              <dc:description><rdf:Alt><rdf:li xml:lang="en">Only English</rdf:li></rdf:Alt></dc:description>
            </rdf:Description>
            """)
        let x = XMPReader.parse(packet)
        #expect(x.title == "Title & more")
        #expect(x.description == "Only English")
        #expect(x.rating == 4)
        #expect(x.sidecarForExtension == "CR3")
        #expect(x.microVideo == 1 && x.microVideoOffset == 2_000_000 && x.microVideoPresentationTimestampUs == 766_000)
        #expect(x.isMotionPhoto)
        #expect(x.dateCreated == nil)  // a day without a time is no capture moment
    }

    @Test("apply fills only the fields that are still empty")
    func applyFillsGaps() {
        let packet = xmpPacket("""
            <rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
              tiff:Make="XMPMake" tiff:Model="XMPModel" tiff:Orientation="8" xmp:CreateDate="2019-02-03T04:05:06Z"/>
            """)
        var metadata = MediaMetadata(format: .jpeg)
        metadata.make = "EXIFMake"
        XMPReader.apply(packet, to: &metadata)
        #expect(metadata.make == "EXIFMake")
        #expect(metadata.model == "XMPModel")
        #expect(metadata.orientation == 8)
        #expect(metadata.captureDate?.iso8601 == "2019-02-03T04:05:06Z")
    }

    @Test("malformed and hostile packets give partial results and warnings, never a crash or hang")
    func hostilePackets() {
        // Truncated mid-tag: what came before is kept.
        let truncated = Array(xmpPacket("<rdf:Description xmlns:tiff='http://ns.adobe.com/tiff/1.0/' tiff:Make='Kept'/><rdf:Description tiff:Model='Lo").prefix(300))
        let t = XMPReader.parse(truncated)
        #expect(t.make == "Kept")
        #expect(!t.warnings.isEmpty)
        // A nesting bomb.
        let bomb = Array((String(repeating: "<a:b xmlns:a='urn:x'>", count: 50_000) + "deep").utf8)
        let b = XMPReader.parse(bomb)
        #expect(b.warnings.contains { $0.contains("deeper") })
        // An attribute flood.
        let flood = Array(("<rdf:Description " + (0..<5_000).map { "a:x\($0)='1'" }.joined(separator: " ") + "/>").utf8)
        #expect(XMPReader.parse(flood).warnings.contains { $0.contains("attributes") })
        // Binary junk, undeclared prefixes, stray closers, and an empty packet.
        _ = XMPReader.parse((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        let undeclared = XMPReader.parse(Array("<tiff:Make>NoNamespace</tiff:Make></x:xmpmeta>".utf8))
        #expect(undeclared.make == "NoNamespace")
        #expect(XMPReader.parse([]).values.isEmpty)
        // An oversized packet is cut, with a warning.
        let huge = [UInt8](repeating: 0x20, count: XMPReader.maxPacketBytes + 10)
        #expect(XMPReader.parse(huge).warnings.contains { $0.contains("cut") })
    }

    @Test("inflates zlib streams with fixed and dynamic Huffman blocks", .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func inflatesCompressedPNGText() throws {
        // Every zTXt/iTXt-compressed chunk in the corpus PNGs must inflate.
        var inflated = 0
        for file in formatsCorpusFiles(ofTypes: ["PNG"]) {
            guard let data = try? Data(contentsOf: file.url) else { continue }
            let bytes = Array(data)
            var offset = 8
            while offset + 12 <= bytes.count {
                let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
                guard length >= 0, offset + 12 + length <= bytes.count else { break }
                let body = Array(bytes[(offset + 8)..<(offset + 8 + length)])
                if type == "zTXt", let nul = body.firstIndex(of: 0), nul + 2 < body.count {
                    let keyword = String(decoding: body[..<nul], as: UTF8.self)
                    #expect(ZlibInflater.inflate(Array(body[(nul + 2)...]), limit: 1 << 24) != nil, "\(file.path) \(keyword)")
                    inflated += 1
                }
                offset += 12 + length
            }
        }
        print("zTXt chunks inflated: \(inflated)")
    }
}
