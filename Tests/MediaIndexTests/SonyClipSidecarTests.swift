import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex

/// A clip's `C0001M01.XML` as Sony XAVC S cameras write it (NonRealTimeMeta ver.2.00),
/// for the corpus movie below: recorded 2025-02-24 10:33:06 UTC, which the clip's movie
/// header holds without an offset; the camera was at UTC+01:00.
private let clipXML = """
<?xml version="1.0" encoding="UTF-8"?>
<NonRealTimeMeta xmlns="urn:schemas-professionalDisc:nonRealTimeMeta:ver.2.00" xmlns:lib="urn:schemas-professionalDisc:lib:ver.2.00" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" lastUpdate="2025-02-24T11:33:10+01:00">
\t<TargetMaterial umidRef="060A2B340101010501010D43130000001A2B3C4D5E6F7081"/>
\t<Duration value="250"/>
\t<LtcChangeTable tcFps="25" halfStep="false">
\t\t<LtcChange frameCount="0" value="11330600" status="increment"/>
\t\t<LtcChange frameCount="249" value="23340701" status="end"/>
\t</LtcChangeTable>
\t<CreationDate value="2025-02-24T11:33:06+01:00"/>
\t<VideoFormat>
\t\t<VideoRecPort port="DIRECT"/>
\t\t<VideoFrame videoCodec="AVC_1920_1080_HP@L41" captureFps="25p" formatFps="25p"/>
\t\t<VideoLayout pixel="1920" numOfVerticalLine="1080" aspectRatio="16:9"/>
\t</VideoFormat>
\t<AudioFormat numOfChannel="2">
\t\t<AudioRecPort port="DIRECT" audioCodec="LPCM16" trackDst="CH1"/>
\t\t<AudioRecPort port="DIRECT" audioCodec="LPCM16" trackDst="CH2"/>
\t</AudioFormat>
\t<Device manufacturer="Sony" modelName="ILCE-7M4" serialNo="4294967295"/>
\t<RecordingMode type="normal" cacheRec="false"/>
\t<AcquisitionRecord>
\t\t<Group name="CameraUnitMetadataSet">
\t\t\t<Item name="CaptureGammaEquation" value="rec709"/>
\t\t</Group>
\t\t<Group name="ExifGPS">
\t\t\t<Item name="LatitudeRef" value="N"/>
\t\t\t<Item name="Latitude" value="48:51:29.400"/>
\t\t\t<Item name="LongitudeRef" value="E"/>
\t\t\t<Item name="Longitude" value="2:17:40.200"/>
\t\t\t<Item name="Status" value="A"/>
\t\t\t<Item name="MeasureMode" value="3"/>
\t\t</Group>
\t</AcquisitionRecord>
</NonRealTimeMeta>
"""

/// A corpus MP4 with a movie-header date and no camera or place of its own.
private let clip = "nom-exif/testdata/udta.auth.mp4"

@Suite("Sony clip XML sidecars", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct SonyClipSidecarTests {
    @Test("C0001M01.XML gives its clip make, model, place and the date's offset, and is its sidecar resource",
          arguments: ["DCIM/C0001", "PRIVATE/M4ROOT/CLIP/C0001"])
    func clipSidecar(_ stem: String) throws {
        let scratch = try ScratchLibrary()
        try scratch.add(clip, as: stem + ".MP4")
        FileManager.default.createFile(atPath: scratch.root + "/" + stem + "M01.XML", contents: Data(clipXML.utf8))
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])

        let assets = try library.assets()
        #expect(assets.count == 1, "the XML is never an asset")
        let asset = try #require(assets.first)
        #expect(asset.make == "Sony" && asset.model == "ILCE-7M4")
        #expect(asset.captureTime?.iso8601 == "2025-02-24T11:33:06+01:00")
        #expect(abs((asset.location?.latitude ?? 0) - (48 + 51 / 60.0 + 29.4 / 3600)) < 1e-6)
        #expect(asset.resources.map(\.type) == [.video, .sidecar])
        #expect(asset.resources.last?.path.displayString == scratch.root + "/" + stem + "M01.XML")
        #expect(asset.resources.last?.uniformType?.preferredMIMEType == "application/xml")
    }

    @Test("an XML copied in after its clip attaches on the next run; without it the clip keeps its own values")
    func laterSidecar() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(clip, as: "C0002.MP4")
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let before = try #require(try library.assets().first)
        #expect(before.make == nil && before.captureTime?.iso8601.hasSuffix("Z") == true)

        FileManager.default.createFile(atPath: scratch.root + "/C0002M01.XML", contents: Data(clipXML.utf8))
        try library.blocking.index()
        let after = try #require(try library.assets().first)
        #expect(after.id == before.id)
        #expect(after.make == "Sony" && after.captureTime?.iso8601 == "2025-02-24T11:33:06+01:00")

        try scratch.remove("C0002M01.XML")
        try library.blocking.index()
        let without = try #require(try library.assets().first)
        #expect(without.make == nil && without.captureTime?.iso8601 == before.captureTime?.iso8601)
    }

    @Test("an XML named like a clip's that holds no clip metadata is ignored")
    func otherXML() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(clip, as: "C0003.MP4")
        FileManager.default.createFile(atPath: scratch.root + "/C0003M01.XML", contents: Data("<config/>".utf8))
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        #expect(try library.assets().first?.resources.map(\.type) == [.video])
    }
}
