@testable import MediaMetadata
import Testing

/// How descriptive metadata is read and reconciled, on small hand-built inputs.
@Suite("Descriptive metadata: reading and reconciling")
struct DescriptiveMetadataTests {
    /// An IPTC IIM dataset 2:`dataset` (or record `record`).
    static func dataset(_ dataset: UInt8, _ value: [UInt8], record: UInt8 = 2) -> [UInt8] {
        [0x1C, record, dataset, UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
    }

    /// Photoshop resources holding an IIM block and, when given, a stored digest.
    static func resources(iim: [UInt8], digest: [UInt8]? = nil) -> [UInt8] {
        func resource(_ id: UInt16, _ body: [UInt8]) -> [UInt8] {
            let size = Fixture.be32(UInt32(body.count))
            return Array("8BIM".utf8) + Fixture.be16(id) + [0, 0] + size + body + (body.count % 2 == 1 ? [0] : [])
        }
        return resource(0x0404, iim) + (digest.map { resource(0x0425, $0) } ?? [])
    }

    /// A JPEG with an APP13 Photoshop segment and, when given, an XMP packet.
    static func jpeg(resources: [UInt8], xmp: String? = nil) -> [UInt8] {
        var bytes = Fixture.jpeg(exif: nil)
        var segments = Fixture.segment(0xED, Array("Photoshop 3.0\0".utf8) + resources)
        if let xmp { segments += Fixture.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(xmp.utf8)) }
        bytes.insert(contentsOf: segments, at: 2)
        return bytes
    }

    static func xmp(_ body: String) -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
          xmlns:lr="http://ns.adobe.com/lightroom/1.0/">\(body)</rdf:Description></rdf:RDF></x:xmpmeta>
        """
    }

    static func read(_ bytes: [UInt8]) throws -> DescriptiveMetadata? {
        try MetadataReader.read(MemoryByteSource(bytes))?.descriptive
    }

    @Test("MD5 matches RFC 1321's test vectors")
    func md5() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
        #expect(hex(MD5.digest(Array("".utf8))) == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(hex(MD5.digest(Array("abc".utf8))) == "900150983cd24fb0d6963f7d28e17f72")
        #expect(hex(MD5.digest(Array(String(repeating: "1234567890", count: 8).utf8))) == "57edf4a22be3c955ac49da2e2107b67a")
    }

    @Test("XMP wins over IPTC when the stored digest matches the IPTC, IPTC wins when it does not")
    func digestDecides() throws {
        let iim = Self.dataset(25, Array("iptc".utf8)) + Self.dataset(120, Array("IPTC caption".utf8))
        let packet = Self.xmp("<dc:subject><rdf:Bag><rdf:li>xmp</rdf:li></rdf:Bag></dc:subject>"
                              + "<dc:description><rdf:Alt><rdf:li xml:lang=\"x-default\">XMP caption</rdf:li></rdf:Alt></dc:description>")
        let inStep = try #require(try Self.read(Self.jpeg(resources: Self.resources(iim: iim, digest: MD5.digest(iim)), xmp: packet)))
        #expect(inStep.keywords == ["xmp"] && inStep.caption == "XMP caption")
        let noDigest = try #require(try Self.read(Self.jpeg(resources: Self.resources(iim: iim), xmp: packet)))
        #expect(noDigest.keywords == ["xmp"])
        let stale = [UInt8](repeating: 7, count: 16)
        let changed = try #require(try Self.read(Self.jpeg(resources: Self.resources(iim: iim, digest: stale), xmp: packet)))
        #expect(changed.keywords == ["iptc"] && changed.caption == "IPTC caption")
    }

    @Test("an IPTC value cut at its length limit is completed from XMP")
    func truncatedIPTC() {
        let long = String(repeating: "a", count: 70)
        let sources = DescriptiveSources(iptc: IPTCRecord(keywords: [String(long.prefix(64))], digest: [1]),
                                         storedIPTCDigest: [2], xmp: XMPDescription(subject: [long]))
        #expect(sources.reconciled().keywords == [long])
    }

    @Test("IPTC text is decoded as declared: UTF-8 with ESC % G, else UTF-8 when valid, else Windows-1252")
    func iptcCharsets() {
        let latin1 = IPTCReader.record(Self.dataset(25, [0x5A, 0xFC, 0x72, 0x69, 0x63, 0x68]) + Self.dataset(5, [0x80, 0x31]))
        #expect(latin1.keywords == ["Zürich"] && latin1.objectName == "€1")
        let declared = IPTCReader.record(Self.dataset(90, [0x1B, 0x25, 0x47], record: 1) + Self.dataset(25, Array("東京".utf8)))
        #expect(declared.keywords == ["東京"])
        // Decomposed input comes out composed (NFC).
        let decomposed = IPTCReader.record(Self.dataset(25, Array("Zu\u{0308}rich".utf8)))
        #expect(decomposed.keywords.first?.unicodeScalars.count == 6)
    }

    @Test("hierarchies are kept as paths and their levels are not repeated as flat keywords")
    func keywordPaths() throws {
        let packet = Self.xmp("""
            <dc:subject><rdf:Bag><rdf:li>Paris</rdf:li><rdf:li>France</rdf:li><rdf:li>dog</rdf:li><rdf:li>DOG</rdf:li></rdf:Bag></dc:subject>
            <lr:hierarchicalSubject><rdf:Bag><rdf:li>Places|France</rdf:li><rdf:li>Places|France|Paris</rdf:li></rdf:Bag></lr:hierarchicalSubject>
            """)
        let read = try #require(XMPReader.parse(Array(packet.utf8)).descriptiveMetadata)
        #expect(read.keywords == ["dog", "Places|France|Paris"])
    }

    @Test("a camera's placeholder is no caption, a person's text is")
    func placeholders() {
        for text in ["OLYMPUS DIGITAL CAMERA", "SONY DSC", "DCIM\\100GOPRO\\GOPR0482.JPG", "DSC00019",
                     "<Digimax i50 MP3, Samsung #1 MP3>", "EPSON DSC picture", "                "] {
            #expect(DescriptiveText.isCameraPlaceholder(text, make: nil, model: nil), "\(text)")
        }
        #expect(DescriptiveText.isCameraPlaceholder("SAMSUNG", make: "SAMSUNG", model: "SM-G960F"))
        for text in ["Photo of a Bird", "123", "Der Goalie bin ig", "DSC night shoot in Oslo"] {
            #expect(!DescriptiveText.isCameraPlaceholder(text, make: "SONY", model: "DSC-RX100"), "\(text)")
        }
    }

    @Test("Windows XP tags are UCS-2 little-endian in a big-endian EXIF block, keywords split at ';'")
    func windowsTags() throws {
        func ucs2(_ text: String) -> Fixture.Field {
            let bytes: [UInt8] = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } + [0, 0]
            return Fixture.Field(tag: 0, type: 1, count: bytes.count, bytes: bytes)
        }
        var title = ucs2("Fête"), keywords = ucs2("cake; family")
        title.tag = 0x9C9B
        keywords.tag = 0x9C9E
        let exif = Fixture.tiff(ifd0: [title, keywords, .short(0x4746, 3)])
        let read = try #require(try Self.read(Fixture.jpeg(exif: exif)))
        #expect(read.title == "Fête" && read.keywords == ["cake", "family"] && read.rating == 3)
    }

    @Test("regions: an MWG face's centre becomes its top-left corner; non-finite areas are dropped")
    func regions() {
        let packet = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:mwg-rs="http://www.metadataworkinggroup.com/schemas/regions/"
              xmlns:stArea="http://ns.adobe.com/xmp/sType/Area#"><mwg-rs:Regions rdf:parseType="Resource">
            <mwg-rs:RegionList><rdf:Bag>
              <rdf:li><rdf:Description mwg-rs:Name="Ann" mwg-rs:Type="Face"><mwg-rs:Area stArea:x="0.5" stArea:y="0.5" stArea:w="0.5" stArea:h="0.25" stArea:unit="normalized"/></rdf:Description></rdf:li>
              <rdf:li><rdf:Description mwg-rs:Name="Bo" mwg-rs:Type="Face"><mwg-rs:Area stArea:x="nan" stArea:y="0.5" stArea:w="0.1" stArea:h="0.1"/></rdf:Description></rdf:li>
              <rdf:li><rdf:Description mwg-rs:Name="Rex" mwg-rs:Type="Pet"/></rdf:li>
            </rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions></rdf:Description></rdf:RDF></x:xmpmeta>
            """
        let people = XMPReader.parse(Array(packet.utf8)).descriptiveMetadata?.people
        #expect(people == [PersonInImage(name: "Ann", face: FaceRectangle(x: 0.25, y: 0.375, width: 0.5, height: 0.25)),
                           PersonInImage(name: "Bo")])
    }

    @Test("hostile IPTC and Photoshop resources: lying sizes, cut blocks and huge counts read what is there")
    func hostileIPTC() {
        // A dataset claiming 60,000 bytes, an extended length of 4 GiB, a resource larger than its block.
        #expect(IPTCReader.record([0x1C, 2, 25, 0xEA, 0x60, 0x41]).keywords.isEmpty)
        #expect(IPTCReader.record([0x1C, 2, 25, 0x80, 0x04, 0xFF, 0xFF, 0xFF, 0xFF, 0x41]).keywords.isEmpty)
        let lying = Array("8BIM".utf8) + [0x04, 0x04, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF, 0x1C]
        #expect(IPTCReader.resources(lying[...]) == IPTCReader.Resources())
        let many = (0..<5000).flatMap { _ in Self.dataset(25, Array("k".utf8)) }
        #expect(IPTCReader.record(many).keywords.count == DescriptiveText.maxItems)
        let keywords = DescriptiveSources(iptc: IPTCReader.record(many)).reconciled().keywords
        #expect(keywords == ["k"])
    }
}
