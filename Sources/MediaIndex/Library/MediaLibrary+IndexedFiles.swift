import MediaMetadata
#if canImport(Glibc)
import Glibc
#endif

extension MediaLibrary.Blocking {
    /// The root folder an indexed file was found under: every open of the file must
    /// resolve inside it without following a symbolic link (`BeneathRoot`). nil for a
    /// path the library does not hold.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func root(ofIndexedFile path: PathBytes) throws -> PathBytes? {
        try library.read { db in try FileRecord.rootPath(ofPath: path, db: db) }
    }

    /// Where an indexed file is opened to be served (resource routes, thumbnails), and
    /// the root that open must resolve inside (`BeneathRoot`): its own path and root;
    /// under a root that follows symbolic links to folders, its resolved path (`realpath`)
    /// and the registered root that holds it. nil for a path the library does not hold.
    ///
    /// - Throws: `BeneathRoot.Failure.resolvesOutsideRoots` for a file reached through a
    ///   followed link to a folder outside every root (indexed, never served), `.system`
    ///   when it cannot be resolved; `LibraryError.database`.
    public func servingLocation(ofIndexedFile path: PathBytes) throws -> (path: PathBytes, root: PathBytes)? {
        let found = try library.read { db -> (root: PathBytes, follows: Bool, roots: [PathBytes])? in
            guard let row = try db.row("""
                SELECT r.path, r.follows_symlinks FROM files f JOIN roots r ON r.id = f.root_id WHERE f.path = ?
                """, [path.bytes]) else { return nil }
            let root = PathBytes(row.blob("path") ?? [])
            let follows = row.int64("follows_symlinks") == 1
            return (root, follows, follows ? try RootStore(db: db).all().map(\.path) : [])
        }
        guard let found else { return nil }
        guard found.follows else { return (path, found.root) }
        guard let resolved = path.resolved() else { throw BeneathRoot.Failure.system(path: path.displayString, code: errno) }
        guard let root = found.roots.first(where: { resolved != $0 && resolved.isInside($0) }) else {
            throw BeneathRoot.Failure.resolvesOutsideRoots(path: path.displayString, resolved: resolved.displayString)
        }
        return (resolved, root)
    }

    /// Opens an indexed file read-only (`O_NONBLOCK`, so a FIFO swapped in never blocks),
    /// inside the root it was indexed under (`servingLocation(ofIndexedFile:)`): a
    /// symbolic link anywhere below the root, or a file the library does not hold, is
    /// refused. The caller owns the descriptor.
    ///
    /// - Throws: `BeneathRoot.Failure` (`.outsideRoot` for a path the library does not
    ///   hold), `LibraryError.database`.
    public func openIndexedFile(_ path: PathBytes) throws -> Int32 {
        guard let location = try servingLocation(ofIndexedFile: path) else {
            throw BeneathRoot.Failure.outsideRoot(path: path.displayString, root: "of the library")
        }
        return try BeneathRoot.open(location.path.bytes, beneath: location.root.bytes, flags: O_RDONLY | O_NONBLOCK)
    }
}
