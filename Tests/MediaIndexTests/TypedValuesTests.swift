import Foundation
import CorpusSupport
import MediaMetadata
import Testing
@testable import MediaIndex

@Suite("Typed values: resource roles, pairing rules and subtypes are Swift types whose names are the JSON's")
struct TypedValuesTests {
    @Test("a resource's role is a FileRole with PhotoKit's PHAssetResourceType names; MediaIndex's own for the describing files")
    func roles() {
        let photoKit: [FileRole] = [.photo, .video, .pairedVideo, .alternatePhoto, .fullSizePhoto, .fullSizeVideo,
                                    .fullSizePairedVideo, .adjustmentData]
        #expect(photoKit.map(\.rawValue) == ["photo", "video", "pairedVideo", "alternatePhoto", "fullSizePhoto",
                                             "fullSizeVideo", "fullSizePairedVideo", "adjustmentData"])
        #expect(Set(FileRole.allCases).subtracting(photoKit) == [.sidecar, .takeoutMetadata, .takeoutAlbumMetadata])
        let resource = AssetResource(type: .pairedVideo, path: PathBytes(Array("/p/IMG_1.MOV".utf8)), bytes: 3,
                                     uniformType: UniformType(.quickTime))
        guard case .object(let members) = resource.fieldValue, case .string(let role)? = members.first?.1 else {
            Issue.record("a resource is written as an object with its role first"); return
        }
        #expect(members.first?.0 == "role" && role == "pairedVideo")
    }

    @Test("a pairing rule is a PairingRule; the JSON writes its name")
    func pairingRules() {
        #expect(PairingRule.allCases.map(\.rawValue) == ["contentIdentifier", "sameStemShortMovie", "motionPhoto", "rawPlusJpeg"])
        var asset = Asset(resources: [])
        asset.pairingRule = .rawPlusJpeg
        guard case .string(let written)? = AssetFields.byField[.pairingRule]?.value(asset) else {
            Issue.record("pairingRule is written as a string"); return
        }
        #expect(written == "rawPlusJpeg")
    }

    @Test("subtypes print their names, in the JSON's order, not their bits")
    func subtypeNames() {
        #expect("\([MediaSubtypes.hdr, .livePhoto] as MediaSubtypes)" == "[livePhoto, hdr]")
        #expect(MediaSubtypes().description == "[]")
    }
}

@Suite("Typed values: a resource's uniform type and an asset's capture time, read once where they enter",
       .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct UniformTypeAndCaptureTimeTests {
    /// One corpus file of each common format (chosen by exiftool's reading of it).
    static func samples() -> [String] {
        var chosen: [String: String] = [:]
        for (path, tags) in Corpus.exiftool.sorted(by: { $0.key < $1.key }) {
            guard let mime = tags["File:MIMEType"]?.string,
                  ["image/jpeg", "image/png", "image/gif", "image/webp", "image/heic", "video/quicktime", "video/mp4"].contains(mime),
                  chosen[mime] == nil, tags["File:FileTypeExtension"]?.string?.lowercased() == (path as NSString).pathExtension.lowercased()
            else { continue }
            chosen[mime] = path
        }
        return chosen.values.sorted()
    }

    @Test("each file's uniform type has the MIME type and extension exiftool reads, and a UTI; PhotoKit's names")
    func uniformTypes() throws {
        let folder = TemporaryFolder()
        let samples = Self.samples()
        #expect(samples.count == 7)
        for (index, path) in samples.enumerated() {
            try FileManager.default.createDirectory(atPath: folder.file("photos/\(index)"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Corpus.media!.path + "/" + path,
                                             toPath: folder.file("photos/\(index)/" + (path as NSString).lastPathComponent))
        }
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        try library.blocking.index(roots: [PathBytes(folder.file("photos"))])
        let resources = try library.blocking.fetchAssets(.everyAsset).assets.flatMap(\.resources)
        for path in samples {
            let name = (path as NSString).lastPathComponent
            let tags = try #require(Corpus.exiftool[path])
            let resource = try #require(resources.first { $0.originalFilename == name }, "\(path)")
            let type = try #require(resource.uniformType, "\(path)")
            #expect(type.preferredMIMEType == tags["File:MIMEType"]?.string, "\(path)")
            #expect(type.preferredFilenameExtension == tags["File:FileTypeExtension"]?.string?.lowercased(), "\(path)")
            #expect(resource.uniformTypeIdentifier == type.identifier && type.identifier.contains("."), "\(path)")
            #expect(type == UniformType(try #require(type.format)), "one value per format")
        }
    }

    @Test("a capture time is the instant with its offset: date, zone and wall clock agree with exiftool's reading")
    func captureTime() throws {
        let folder = TemporaryFolder()
        let path = "ianare-exif-samples/jpg/Canon_40D.jpg"
        try FileManager.default.createDirectory(atPath: folder.file("photos"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Corpus.media!.path + "/" + path, toPath: folder.file("photos/a.jpg"))
        let library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        try library.blocking.index(roots: [PathBytes(folder.file("photos"))])
        let asset = try #require(try library.blocking.fetchAssets(.everyAsset).assets.first)
        let clock = try #require(Corpus.exiftool[path]?["ExifIFD:DateTimeOriginal"]?.string)  // 2008:05:30 15:56:01
        let time = try #require(asset.captureTime)
        let wall = time.dateComponents
        let digits = [wall.year, wall.month, wall.day, wall.hour, wall.minute, wall.second].map { String(format: "%02d", $0 ?? -1) }
        #expect(digits.joined(separator: ":") == clock.replacingOccurrences(of: " ", with: ":"))
        let offset = time.utcOffsetSeconds ?? 0
        #expect(time.timeZone?.secondsFromGMT() == time.utcOffsetSeconds)
        #expect(asset.creationDate == time.date)
        #expect(time.date.timeIntervalSince1970 + Double(offset) == Double(CaptureDate(exif: clock)!.sortTimestamp))
        #expect(time.iso8601.hasPrefix("2008-05-30T15:56:01"))
    }
}
