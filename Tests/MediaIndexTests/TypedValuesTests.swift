import Foundation
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
        let resource = AssetResource(role: .pairedVideo, path: PathBytes(Array("/p/IMG_1.MOV".utf8)), bytes: 3,
                                     contentType: "video/quicktime")
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
