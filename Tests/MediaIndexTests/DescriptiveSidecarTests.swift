@testable import MediaIndex
import MediaMetadata
import Testing

/// Whose descriptive values an asset shows: a sidecar's replace the file's field by
/// field; Takeout's fill what the file lacks.
@Suite("Descriptive metadata: sidecars and Takeout")
struct DescriptiveSidecarTests {
    static func sidecar(_ body: String) -> SidecarValues {
        let packet = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/">\(body)
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        return SidecarValues(XMPReader.parse(Array(packet.utf8)))
    }

    static func file() -> MediaMetadata {
        var metadata = MediaMetadata(format: .jpeg)
        metadata.descriptive = DescriptiveMetadata(keywords: ["beach", "sun"], title: "File title",
                                                   caption: "File caption", rating: 2)
        return metadata
    }

    @Test("a sidecar's keywords replace the file's (not merged); fields it lacks stay the file's")
    func fieldByField() {
        var metadata = Self.file()
        SidecarAttacher.apply([Self.sidecar("<dc:subject><rdf:Bag><rdf:li>sea</rdf:li></rdf:Bag></dc:subject><xmp:Rating>5</xmp:Rating>")],
                              to: &metadata)
        #expect(metadata.descriptive == DescriptiveMetadata(keywords: ["sea"], title: "File title",
                                                            caption: "File caption", rating: 5))
    }

    @Test("with two sidecars, the first in precedence gives each field it has")
    func precedence() {
        var metadata = Self.file()
        let exact = Self.sidecar("<xmp:Rating>4</xmp:Rating>")
        let other = Self.sidecar("<xmp:Rating>1</xmp:Rating><xmp:Label>Red</xmp:Label>")
        SidecarAttacher.apply([exact, other], to: &metadata)
        #expect(metadata.descriptive?.rating == 4)
        #expect(metadata.descriptive?.label == "Red")
    }

    @Test("a sidecar row stored before descriptive values existed still gives its rating")
    func oldSidecarRow() throws {
        var old = Self.sidecar("<xmp:Rating>3</xmp:Rating>")
        old.descriptive = nil
        var metadata = Self.file()
        SidecarAttacher.apply([old], to: &metadata)
        #expect(metadata.descriptive?.rating == 3 && metadata.descriptive?.title == "File title")
    }

    @Test("Takeout's description is a caption; its title is one only when it is not a file name")
    func takeout() {
        var values = TakeoutValues()
        values.title = "IMG_1234.HEIC"
        values.description = "Grandma's 90th"
        var metadata = MediaMetadata(format: .heic)
        TakeoutSidecar.fill(&metadata, from: values, primaryName: "IMG_1234.HEIC")
        #expect(metadata.descriptive == DescriptiveMetadata(caption: "Grandma's 90th"))
        values.title = "Summer at the lake"
        TakeoutSidecar.fill(&metadata, from: values, primaryName: "IMG_1234.HEIC")
        #expect(metadata.descriptive?.title == "Summer at the lake")
        #expect(TakeoutSidecar.isFileName("img_1234", primaryName: "IMG_1234.HEIC"))
        #expect(TakeoutSidecar.isFileName("PXL_20230101_120000.jpg", primaryName: "other.jpg"))
    }
}
