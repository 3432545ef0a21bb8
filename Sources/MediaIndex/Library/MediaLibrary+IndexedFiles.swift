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

    /// Opens an indexed file read-only (`O_NONBLOCK`, so a FIFO swapped in never blocks),
    /// inside the root it was indexed under: a symbolic link anywhere below the root, or
    /// a file the library does not hold, is refused. The caller owns the descriptor.
    ///
    /// - Throws: `BeneathRoot.Failure` (`.outsideRoot` for a path the library does not
    ///   hold), `LibraryError.database`.
    public func openIndexedFile(_ path: PathBytes) throws -> Int32 {
        guard let root = try root(ofIndexedFile: path) else {
            throw BeneathRoot.Failure.outsideRoot(path: path.displayString, root: "of the library")
        }
        return try BeneathRoot.open(path.bytes, beneath: root.bytes, flags: O_RDONLY | O_NONBLOCK)
    }
}
