import Foundation
import CorpusSupport
import MediaThumbnails
import Testing
@testable import MediaIndex

/// A camera JPEG with its make and capture date (exiftool: Canon, 2013:01:11 13:02:14, 1500×1000).
private let cameraJPEG = "exiv2-test-data/test/data/exiv2-bug876.jpg"
/// Another photo (exiftool: NIKON CORPORATION, 800×534).
private let otherJPEG = "immich-test-assets/albums/nature/tanners_ridge.jpg"

@Suite("Duplicates in a library", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct DuplicateLibraryTests {
    /// The original, a byte copy, a hard link to it, a smaller re-encode without metadata
    /// (a 600-pixel thumbnail of it) and an unrelated photo.
    static func scratch() throws -> ScratchLibrary {
        let scratch = try ScratchLibrary()
        try scratch.add(cameraJPEG, as: "camera/original.jpg")
        try scratch.add(cameraJPEG, as: "backup/copy.jpg")
        try scratch.add(otherJPEG, as: "camera/other.jpg")
        #expect(link(scratch.root + "/camera/original.jpg", scratch.root + "/linked.jpg") == 0)
        let small = try ThumbnailGenerator.thumbnail(ofFileAt: scratch.root + "/camera/original.jpg",
                                                     request: ThumbnailRequest(maxPixelSize: 600, format: .jpeg(quality: 70)))
        try FileManager.default.createDirectory(atPath: scratch.root + "/exported", withIntermediateDirectories: true)
        try Data(small.data).write(to: URL(fileURLWithPath: scratch.root + "/exported/small.jpg"), options: [])
        return scratch
    }

    static func id(_ library: MediaLibrary, _ name: String, root: String) throws -> Asset.ID {
        try #require(try library.blocking.asset(path: PathBytes(root + "/" + name))?.id)
    }

    @Test("after index alone: byte copies make a same-file group (a hard link is the original itself), the re-encode a duplicate group kept by the original")
    func groups() throws {
        let scratch = try Self.scratch()
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let groups = try library.blocking.duplicateGroups()
        let original = try Self.id(library, "camera/original.jpg", root: scratch.root)
        let copy = try Self.id(library, "backup/copy.jpg", root: scratch.root)
        let linked = try Self.id(library, "linked.jpg", root: scratch.root)
        let small = try Self.id(library, "exported/small.jpg", root: scratch.root)
        let sameFile = groups.filter { $0.kind == .sameFile }
        #expect(sameFile.count == 1)
        // The hard link is another path of the original's asset, not a member of its own.
        #expect(linked == original)
        #expect(Set(sameFile.first?.assets ?? []) == [original, copy])
        #expect(sameFile.first?.sharedFiles == [])
        let duplicates = groups.filter { $0.kind == .duplicate }
        #expect(duplicates.count == 1)
        let group = try #require(duplicates.first)
        #expect(group.assets.contains(small) && group.assets.contains(original))
        #expect(group.keeper != small && group.keeperReason == .original)
        #expect(group.distance <= DuplicateGate.duplicateRadius)
        #expect(groups.allSatisfy { $0.kind != .similar })
    }

    @Test("the hashes are kept: a second listing reads them instead of decoding again, and the identifiers stay")
    func hashesKept() throws {
        let scratch = try Self.scratch()
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let first = try library.blocking.duplicateGroups()
        let stored = try library.read { db in try db.scalarInt("SELECT count(*) FROM perceptual_hashes WHERE dct_hash IS NOT NULL") }
        #expect(stored == 4)
        #expect(try library.blocking.duplicateGroups().map(\.id).sorted() == first.map(\.id).sorted())
    }

    @Test("a new copy joins its group on re-index, with a change-feed entry; the group's identifier changes with its members")
    func incremental() throws {
        let scratch = try Self.scratch()
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let before = try library.blocking.duplicateGroups(kind: .duplicate)
        let token = try library.blocking.currentChangeToken()
        try scratch.add(cameraJPEG, as: "later/another.jpg")
        try library.blocking.index()
        let another = try Self.id(library, "later/another.jpg", root: scratch.root)
        let members = try library.read { db in
            try db.rows("SELECT kind FROM duplicate_members m JOIN assets a ON a.id = m.asset_id WHERE a.identifier = ?",
                        [another.rawValue]).compactMap { $0[0].text }
        }
        #expect(members.contains("same-file"))
        let changes = try library.blocking.changes(since: token).changes
        #expect(changes.contains { $0.id == another && $0.kind == .updated && $0.fields.contains(.duplicateGroups) })
        // Removing it again: it leaves, and the group is as before.
        #expect(unlink(scratch.root + "/later/another.jpg") == 0)
        try library.blocking.index()
        #expect(try library.blocking.duplicateGroups(kind: .duplicate).map(\.id) == before.map(\.id))
    }

    /// The stored memberships, `kind/identifier` → group key.
    static func memberships(_ library: MediaLibrary) throws -> [String: String] {
        try library.read { db in
            Dictionary(uniqueKeysWithValues: try db.rows("""
                SELECT m.kind, a.identifier, m.group_key FROM duplicate_members m JOIN assets a ON a.id = m.asset_id
                """).compactMap { row in
                guard let kind = row[0].text, let id = row[1].text, let key = row[2].text else { return nil }
                return ("\(kind)/\(id)", key)
            })
        }
    }

    /// The memberships a whole regroup of the library computes.
    static func wholeMemberships(_ library: MediaLibrary) throws -> [String: String] {
        var found: [String: String] = [:]
        for group in try library.computeGroups().groups {
            for asset in group.assets { found["\(group.kind.rawValue)/\(asset.rawValue)"] = group.id }
        }
        return found
    }

    @Test("incremental: a re-encode added to an indexed folder joins its group on re-index, regrouping only its neighbourhood, and leaves when deleted; the identifiers are as a whole regroup's, and come back")
    func incrementalJoinAndLeave() throws {
        let scratch = try Self.scratch()
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        _ = try library.blocking.duplicateGroups()
        let before = try Self.memberships(library)
        let original = try Self.id(library, "camera/original.jpg", root: scratch.root)
        let other = try Self.id(library, "camera/other.jpg", root: scratch.root)
        let token = try library.blocking.currentChangeToken()
        let reencode = try ThumbnailGenerator.thumbnail(ofFileAt: scratch.root + "/camera/original.jpg",
                                                        request: ThumbnailRequest(maxPixelSize: 900, format: .jpeg(quality: 55)))
        try FileManager.default.createDirectory(atPath: scratch.root + "/later", withIntermediateDirectories: true)
        try Data(reencode.data).write(to: URL(fileURLWithPath: scratch.root + "/later/reencode.jpg"), options: [])
        try library.blocking.index()
        let added = try Self.id(library, "later/reencode.jpg", root: scratch.root)
        let after = try Self.memberships(library)
        #expect(after["duplicate/\(added.rawValue)"] != nil)
        #expect(after["duplicate/\(added.rawValue)"] == after["duplicate/\(original.rawValue)"])
        #expect(after == (try Self.wholeMemberships(library)))
        // The same-file group kept its identifier: its members did not change.
        #expect(after.filter { $0.key.hasPrefix("same-file/") } == before.filter { $0.key.hasPrefix("same-file/") })
        let changes = try library.blocking.changes(since: token).changes
        #expect(changes.contains { $0.id == added && $0.fields.contains(.duplicateGroups) })
        #expect(changes.contains { $0.id == original && $0.fields.contains(.duplicateGroups) })
        // Only the re-encode's neighbourhood is regrouped: the unrelated photo is outside it.
        let rows = try library.read { db in
            try db.rows("SELECT identifier, id FROM assets").reduce(into: [String: Int64]()) { $0[$1[0].text ?? ""] = $1[1].int64 }
        }
        let addedRow = try #require(rows[added.rawValue])
        let scope = try #require(try library.regroupScope(changed: [addedRow]))
        let originalRow = try #require(rows[original.rawValue]), otherRow = try #require(rows[other.rawValue])
        #expect(scope.contains(originalRow))
        #expect(!scope.contains(otherRow))
        // Deleted again: it leaves, and every group has its identifier of before.
        #expect(unlink(scratch.root + "/later/reencode.jpg") == 0)
        try library.blocking.index()
        #expect(try Self.memberships(library) == before)
    }

    @Test("resolve hides the others, copies favourite and album onto the keeper, prints their paths, and unhide undoes it")
    func resolve() throws {
        let scratch = try Self.scratch()
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let group = try #require(try library.blocking.duplicateGroups(kind: .duplicate).first)
        let keeper = try #require(group.keeper)
        let other = try #require(group.assets.first { $0 != keeper })
        let album = try library.blocking.createAlbum(title: "Trip")
        try library.blocking.addAssets([other], toAlbum: album.id)
        try library.blocking.setFavorite(true, for: [other])

        let resolution = try library.blocking.resolveDuplicateGroup(group.id)
        #expect(resolution.keeper == keeper && Set(resolution.hidden) == Set(group.assets.filter { $0 != keeper }))
        #expect(resolution.merged == ["favorite", "album"])
        let kept = try #require(try library.blocking.asset(id: keeper))
        #expect(kept.isFavorite)
        var inAlbum = FetchOptions.everyAsset
        inAlbum.album = .user(album.id)
        #expect(try library.blocking.fetchAssets(inAlbum).assets.map(\.id).contains(keeper))
        #expect(try library.blocking.asset(id: other)?.isHidden == true)
        #expect(resolution.hiddenPaths.allSatisfy { FileManager.default.fileExists(atPath: $0.displayString) })
        // Resolved: the group is gone; unhiding brings it back.
        #expect(try library.blocking.duplicateGroups(kind: .duplicate).isEmpty)
        try library.blocking.setHidden(false, for: resolution.hidden)
        #expect(try library.blocking.duplicateGroups(kind: .duplicate).map(\.id) == [group.id])
    }

    @Test("resolve unions keywords and copies a GPS position onto a keeper without one, in user state; the files stay as they were")
    func resolveMergesKeywordsAndGPS() throws {
        let scratch = try ScratchLibrary()
        try scratch.add(cameraJPEG, as: "camera/original.jpg")
        try scratch.add(cameraJPEG, as: "shared/tagged.jpg")
        // The copy a messenger made: no camera (so not the keeper), with keywords and a position.
        let tagged = scratch.root + "/shared/tagged.jpg"
        try ExternalTool.run("/usr/bin/exiftool", ["-q", "-q", "-overwrite_original", "-Make=", "-Model=", "-Keywords=Beach",
                                                   "-Keywords=Holiday", "-GPSLatitude=48.85", "-GPSLatitudeRef=N",
                                                   "-GPSLongitude=2.35", "-GPSLongitudeRef=E", tagged])
        let before = try Data(contentsOf: URL(fileURLWithPath: tagged))
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        let original = try Self.id(library, "camera/original.jpg", root: scratch.root)
        let group = try #require(try library.blocking.duplicateGroups(kind: .duplicate).first)
        #expect(group.keeper == original)
        try library.blocking.setUserDescription(UserDescriptionEdit(keywords: .set(["Family"])), for: [original])

        let resolution = try library.blocking.resolveDuplicateGroup(group.id)
        #expect(resolution.merged == ["keywords", "gps"])
        #expect(try library.blocking.userDescription(of: original).keywords == ["Beach", "Family", "Holiday"])
        let location = try #require(try library.blocking.asset(id: original)?.location)
        #expect(abs(location.latitude - 48.85) < 1e-6 && abs(location.longitude - 2.35) < 1e-6)
        #expect(try Data(contentsOf: URL(fileURLWithPath: tagged)) == before)
    }

    @Test("the duplicates and similar filters and the Duplicates album read the memberships")
    func filtersAndAlbums() throws {
        let scratch = try Self.scratch()
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        try library.blocking.duplicateGroups()
        var options = FetchOptions.everyAsset
        options.filter = try MediaFilter(parsing: "duplicates")
        // The original (with its hard link: one asset), its copy and its re-encode.
        #expect(try library.blocking.fetchAssets(options).assets.count == 3)
        options.filter = try MediaFilter(parsing: "similar")
        #expect(try library.blocking.fetchAssets(options).assets.isEmpty)
        let albums = try library.blocking.fetchAlbums()
        #expect(albums.first { $0.title == "Duplicates" }?.count == 3)
        #expect(!albums.contains { $0.title == "Similar" })
        // And in search: is:duplicate (or is:duplicates) and is:similar.
        #expect(try library.blocking.search("is:duplicate").count == 3)
        #expect(try library.blocking.search("is:duplicates -is:duplicate").count == 0)
        #expect(try library.blocking.search("is:similar").count == 0)
    }

    @Test("a duplicate group that does not exist is refused with its identifier")
    func unknownGroup() throws {
        let scratch = try Self.scratch()
        let library = try scratch.open()
        try library.blocking.index(roots: [PathBytes(scratch.root)])
        #expect(throws: LibraryError.duplicateGroupNotFound("d0000000000000000")) {
            try library.blocking.resolveDuplicateGroup("d0000000000000000")
        }
    }
}
