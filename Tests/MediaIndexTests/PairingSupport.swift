import CorpusSupport
import Foundation
import Testing
@testable import MediaIndex

/// Reads a JSON file of the corpus as plain Foundation values.
func pairingCorpusJSON(_ relative: String) throws -> [String: Any] {
    let url = try #require(Corpus.root).appendingPathComponent(relative)
    return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
}

/// Every asset of a library keyed by the path of each of its resources.
func pairingAssetsByPath(_ library: MediaLibrary) throws -> [String: Asset] {
    var byPath: [String: Asset] = [:]
    try library.forEachAsset { asset in
        for resource in asset.resources { byPath[resource.path.displayString] = asset }
    }
    return byPath
}

/// A temporary tree of copies of corpus files, free to change.
struct PairingTree {
    let folder = TemporaryFolder()
    var root: String { folder.file("photos") }
    var library: LibraryLocation { LibraryLocation(directory: folder.file("library")) }

    /// Copies `source` (relative to the corpus root) to `name` (relative to the tree's root).
    func copy(_ source: String, to name: String) throws {
        let target = root + "/" + name
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        if FileManager.default.fileExists(atPath: target) { try FileManager.default.removeItem(atPath: target) }
        try FileManager.default.copyItem(atPath: try #require(Corpus.root).path + "/" + source, toPath: target)
        // Copies of read-only corpus files must stay deletable and replaceable.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target)
    }

    func remove(_ name: String) throws { try FileManager.default.removeItem(atPath: root + "/" + name) }

    func move(_ name: String, to newName: String) throws {
        let target = root + "/" + newName
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: root + "/" + name, toPath: target)
    }

    func path(_ name: String) -> String { root + "/" + name }
}
