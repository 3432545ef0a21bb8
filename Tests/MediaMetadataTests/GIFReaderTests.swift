import CorpusSupport
import Testing
@testable import MediaMetadata

/// A GIF built in code: header, no colour table, then `body`.
func makeGIF(width: UInt16 = 10, height: UInt16 = 7, body: [UInt8]) -> [UInt8] {
    Array("GIF89a".utf8) + [UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8), 0, 0, 0] + body
}

/// One frame: graphic control extension, image descriptor with a 2-colour local table, tiny data.
let gifFrame: [UInt8] = [0x21, 0xF9, 4, 0, 10, 0, 0, 0]
    + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0x80, 0, 0, 0, 255, 255, 255, 2, 2, 0x4C, 0x01, 0]

@Suite("GIF reader")
struct GIFReaderTests {
    @Test("reads size and frame count of every corpus GIF like exiftool",
          .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func corpusAgreement() throws {
        var tally = FormatsAgreementTally("GIF")
        let files = formatsCorpusFiles(ofTypes: ["GIF"])
        #expect(files.count >= 10)
        for file in files {
            let reading: ContainerReading
            do {
                reading = try GIFReader.read(FileByteSource(path: file.url.path))
            } catch {
                tally.record("read", file.path, agree: false, detail: "threw \(error)")
                continue
            }
            let size = formatsReferenceImageSize(file.exiftool)
            tally.compare("width", file.path, ours: reading.metadata.pixelWidth, reference: size?.0)
            tally.compare("height", file.path, ours: reading.metadata.pixelHeight, reference: size?.1)
            // exiftool states FrameCount only for animations.
            if let frames = file.exiftool["GIF:FrameCount"]?.number.map({ Int($0) }) {
                tally.compare("frameCount", file.path, ours: reading.metadata.frameCount, reference: frames)
            } else {
                let ours = reading.metadata.frameCount ?? -1
                tally.record("frameCount", file.path, agree: ours == 0 || ours == 1, detail: "ours \(ours), exiftool states none (≤ 1)")
            }
            let animated = (file.exiftool["GIF:FrameCount"]?.number ?? 1) > 1
            tally.compare("isAnimated", file.path, ours: reading.metadata.isAnimated, reference: animated)
            let xmpHasValues = reading.xmp.map { !XMPReader.parse($0).values.isEmpty } ?? false
            tally.compare("hasXMP", file.path, ours: xmpHasValues, reference: formatsHasGroup(file.exiftool, "XMP-"))
        }
        tally.printTable()
        tally.expectAgreement()
    }

    @Test("reads or rejects every corpus file of any type without crashing", .enabled(if: Corpus.isAvailable, "needs the shared corpus"))
    func everyCorpusFile() {
        let result = runOnEveryCorpusFile(GIFReader.read)
        #expect(result.other.isEmpty)
        #expect(result.read >= 13)
    }

    @Test("every truncation of an animated GIF is read or rejected cleanly")
    func truncations() {
        readEveryTruncation(makeGIF(body: gifFrame + gifFrame + [0x3B]), GIFReader.read)
    }

    @Test("counts frames through extensions and local colour tables")
    func countsFrames() throws {
        let gif = makeGIF(body: gifFrame + gifFrame + gifFrame + [0x3B])
        let reading = try GIFReader.read(MemoryByteSource(gif))
        #expect(reading.metadata.pixelWidth == 10)
        #expect(reading.metadata.pixelHeight == 7)
        #expect(reading.metadata.frameCount == 3)
        #expect(reading.metadata.isAnimated == true)
        #expect(reading.metadata.warnings.isEmpty)
    }

    @Test("extracts the XMP application extension, stripping the magic trailer")
    func xmpExtension() throws {
        let packet = Array("<?xpacket begin=''?><x:xmpmeta xmlns:x='adobe:ns:meta/'/><?xpacket end='w'?>".utf8)
        var trailer: [UInt8] = [0x01]
        for value in stride(from: 0xFF, through: 0x00, by: -1) { trailer.append(UInt8(value)) }
        trailer.append(0x00)
        let ext: [UInt8] = [0x21, 0xFF, 11] + Array("XMP DataXMP".utf8) + packet + trailer
        let reading = try GIFReader.read(MemoryByteSource(makeGIF(body: ext + gifFrame + [0x3B])))
        #expect(reading.xmp == packet)
        #expect(reading.metadata.frameCount == 1)
        #expect(reading.metadata.isAnimated == false)
    }

    @Test("a never-ending sub-block chain ends at the end of the file with a warning")
    func endlessSubBlocks() throws {
        var body: [UInt8] = [0x21, 0xFE]
        for _ in 0..<50_000 { body += [4, 1, 2, 3, 4] }
        let reading = try GIFReader.read(MemoryByteSource(makeGIF(body: body)))
        #expect(reading.metadata.frameCount == 0)
        #expect(reading.metadata.warnings.contains { $0.contains("ends inside") })
    }

    @Test("a truncated frame is counted and reported; junk blocks stop the walk")
    func truncatedAndJunk() throws {
        let cut = try GIFReader.read(MemoryByteSource(makeGIF(body: gifFrame + Array(gifFrame.prefix(gifFrame.count - 2)))))
        #expect(cut.metadata.frameCount == 2)
        #expect(!cut.metadata.warnings.isEmpty)
        let junk = try GIFReader.read(MemoryByteSource(makeGIF(body: gifFrame + [0x99, 1, 2])))
        #expect(junk.metadata.frameCount == 1)
        #expect(junk.metadata.warnings.contains { $0.contains("unknown block") })
    }

    @Test("rejects a file without the GIF signature or cut inside the header")
    func rejectsNonGIF() {
        #expect(throws: MetadataError.self) { try GIFReader.read(MemoryByteSource(Array("GIF90a\0\0\0\0\0\0\0".utf8))) }
        #expect(throws: MetadataError.self) { try GIFReader.read(MemoryByteSource(Array("GIF89a".utf8))) }
    }
}
