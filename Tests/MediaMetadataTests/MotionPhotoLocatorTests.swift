import CorpusSupport
import Foundation
import Testing
@testable import MediaMetadata

@Suite("MotionPhotoLocator")
struct MotionPhotoLocatorTests {
    /// A minimal MP4: `ftyp` then an empty `free` box.
    private let tinyMP4: [UInt8] = [0, 0, 0, 16] + Array("ftypisom".utf8) + [0, 0, 0, 0] + [0, 0, 0, 8] + Array("free".utf8)

    @Test("a slice reads only its window and stops at its end")
    func slice() throws {
        let base = MemoryByteSource(Array(0..<100))
        let slice = ByteSourceSlice(base, offset: 90, length: 50)
        #expect(slice.size == 10)
        #expect(try slice.read(at: 0, count: 4) == [90, 91, 92, 93])
        #expect(try slice.read(at: 8, count: 10) == [98, 99])
        #expect(try slice.read(at: 10, count: 1) == [])
    }

    @Test("reads Samsung's SEFT trailer whose MotionPhoto_Data record holds the MP4")
    func samsungJPEGTrailer() throws {
        // Given JPEG bytes, a MotionPhoto_Data record with the MP4, and the SEFH directory
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]
        let name = Array("MotionPhoto_Data".utf8)
        let record: [UInt8] = [0, 0, 0x30, 0x0A] + le32(UInt32(name.count)) + name + tinyMP4
        var directory: [UInt8] = Array("SEFH".utf8) + le32(107) + le32(1)
        directory += [0, 0, 0x30, 0x0A] + le32(UInt32(record.count)) + le32(UInt32(record.count))
        let file = jpeg + record + directory + le32(UInt32(directory.count)) + Array("SEFT".utf8)
        var warnings: [String] = []
        // When located
        let info = try #require(MotionPhotoLocator.locate(in: MemoryByteSource(file), format: .jpeg, xmp: nil, warnings: &warnings))
        // Then the MP4 follows the record's name
        #expect(info.videoOffset == UInt64(jpeg.count + 8 + name.count))
        #expect(info.videoLength == UInt64(tinyMP4.count))
        #expect(info.locatedBy == .samsungTrailer)
    }

    @Test("lying trailer sizes and offsets find nothing and never crash")
    func hostileTrailers() {
        var warnings: [String] = []
        for lie: UInt32 in [0, 11, 0xFFFF_FFFF, 40] {
            let file: [UInt8] = [0xFF, 0xD8] + Array("SEFH".utf8) + le32(1) + le32(0xFFFF) + le32(lie) + Array("SEFT".utf8)
            #expect(MotionPhotoLocator.locate(in: MemoryByteSource(file), format: .jpeg, xmp: nil, warnings: &warnings) == nil)
        }
        var xmp = XMPProperties()
        xmp.motionPhoto = 1
        xmp.microVideoOffset = 1 << 40
        #expect(MotionPhotoLocator.locate(in: MemoryByteSource([0xFF, 0xD8]), format: .jpeg, xmp: xmp, warnings: &warnings) == nil)
        #expect(warnings.count == 1)
    }

    @Test("the synthetic Pixel motion photo: offset, length and 2.5 s video from the container directory",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func syntheticPixel() throws {
        let relative = "motion-photo/PXL_20240101_120000000.MP.jpg"
        let source = try FileByteSource(path: try #require(Corpus.synthetic).path + "/" + relative)
        let metadata = try #require(try MetadataReader.read(source))
        let motion = try #require(metadata.motionPhoto)
        let reference = try #require(Corpus.syntheticExiftool[relative])
        #expect(motion.presentationTimestampUs == reference["XMP-GCamera:MotionPhotoPresentationTimestampUs"]?.number.map { Int64($0) })
        #expect(motion.videoOffset + motion.videoLength == source.size)
        #expect(abs((motion.videoDurationSeconds ?? 0) - 2.5) < 0.01)
        #expect(motion.locatedBy == .containerDirectory)
    }

    @Test("the vivo motion photo by GCamera:MotionPhotoOffset; a gain-map-only JPEG is no motion photo but HDR",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func realFiles() throws {
        let media = try #require(Corpus.media).path
        let vivo = "nom-exif/testdata/motion_photo_pixel_synth.jpg"
        let vivoMetadata = try #require(try MetadataReader.read(try FileByteSource(path: media + "/" + vivo)))
        let offset = try #require(Corpus.exiftool[vivo]?["XMP-GCamera:MotionPhotoOffset"]?.number)
        #expect(vivoMetadata.motionPhoto?.videoOffsetFromEnd == UInt64(offset))
        #expect(vivoMetadata.motionPhoto?.locatedBy == .motionPhotoOffset)

        let pixel = "ente-test-fixtures/media/motion-photos/v1/files/pixel_8.jpg"
        let pixelMetadata = try #require(try MetadataReader.read(try FileByteSource(path: media + "/" + pixel)))
        #expect(pixelMetadata.motionPhoto == nil)
        #expect(pixelMetadata.hasGainMap == true)
    }

    @Test("UserComment agrees with exiftool wherever it says Screenshot",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func userComments() throws {
        let media = try #require(Corpus.media).path
        var compared = 0
        for (relative, tags) in Corpus.exiftool {
            guard let expected = tags["ExifIFD:UserComment"]?.string, expected == "Screenshot",
                  let source = try? FileByteSource(path: media + "/" + relative) else { continue }
            #expect(try MetadataReader.read(source)?.userComment == expected, "\(relative)")
            compared += 1
        }
        #expect(compared >= 3)
    }

    private func le32(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }
}
