import Foundation

/// A stamp of everything a read of the library can see. Two stamps taken from the same
/// `MediaLibrary` are equal exactly when nothing was committed in between to
/// `library.sqlite` or `user-state.sqlite`, by any connection of this process or of
/// another one (an index run, the watcher, a favorite set by the CLI).
///
/// It is SQLite's `PRAGMA data_version` of both databases, read on a connection that
/// never writes, so taking one costs a few microseconds and reads no table. A server
/// keeps an answer for as long as the stamp it was computed under is current.
///
/// Stamps of different `MediaLibrary` instances are not comparable.
public struct LibraryDataVersion: Hashable, Sendable, CustomStringConvertible {
    /// `PRAGMA main.data_version` on the stamping connection.
    let library: Int
    /// `PRAGMA userstate.data_version` on the same connection.
    let userState: Int

    public var description: String { "\(library).\(userState)" }
}

/// The one connection that takes `LibraryDataVersion` stamps for a library, opened on
/// first use and kept. It never writes, so its data versions move on every commit.
final class DataVersionProbe: @unchecked Sendable {
    // @unchecked: `connection` is only touched under `lock`.
    private let lock = NSLock()
    private var connection: DatabaseConnection?
    private let location: LibraryLocation

    init(location: LibraryLocation) {
        self.location = location
    }

    func current() throws -> LibraryDataVersion {
        lock.lock()
        defer { lock.unlock() }
        do {
            if connection == nil {
                let opened = try DatabaseConnection(path: location.databasePath, readOnly: true)
                try opened.execute("ATTACH DATABASE ? AS \(UserStateStore.schema)", [location.userStatePath])
                connection = opened
            }
            guard let connection,
                  let library = try connection.scalarInt("PRAGMA main.data_version"),
                  let userState = try connection.scalarInt("PRAGMA \(UserStateStore.schema).data_version")
            else { throw LibraryError.io("cannot read the data version of \(location.databasePath)") }
            return LibraryDataVersion(library: library, userState: userState)
        } catch let error as DatabaseError {
            connection = nil
            throw LibraryError.database(error)
        }
    }
}

extension MediaLibrary {
    /// The library's current data version, off the caller's executor; see
    /// `Blocking.dataVersion()`.
    ///
    /// - Throws: `LibraryError.database` when the library cannot be read.
    public func dataVersion() async throws -> LibraryDataVersion {
        try await offExecutor { try $0.dataVersion() }
    }
}

extension MediaLibrary.Blocking {
    /// The library's current data version: it changes whenever anything is committed
    /// to the library or its user state, by this process or another. A result computed
    /// after taking a stamp stays right for as long as the stamp is current.
    ///
    /// - Throws: `LibraryError.database` when the library cannot be read.
    public func dataVersion() throws -> LibraryDataVersion {
        try library.versionProbe.current()
    }
}

extension MediaLibrary.Blocking {
    /// Frees what idle database connections keep in memory (their page caches), for a
    /// server once a burst of requests is over; nothing is lost, reads fill them again.
    public func releaseIdleMemory() {
        library.reader.releaseIdleMemory()
    }
}
