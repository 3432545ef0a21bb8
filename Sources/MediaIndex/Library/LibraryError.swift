import Foundation

/// Why a library operation failed. Each case carries what failed and reads as one
/// sentence; a command-line tool adds its own advice (which flag to pass) to it.
public enum LibraryError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The library path names a regular file, not a folder.
    case libraryPathIsAFile(path: String)
    /// `library.sqlite` exists but is not a SQLite database, or not ours.
    case notALibrary(path: String, reason: String)
    /// No library exists yet where one was asked for (the library folder).
    case noLibrary(path: String)
    /// The database was written by a newer MediaIndex.
    case newerSchema(path: String, found: Int, known: Int)
    /// Another index run holds the library's lock (`holder` says which process).
    case indexRunInProgress(path: String, holder: String)
    /// An index run was asked for every registered root, and none is registered.
    case noRoots
    /// A root folder cannot be used.
    case invalidRoot(path: String, reason: String)
    /// A root that is not registered.
    case unknownRoot(path: String)
    /// No asset with that identifier or path (as given).
    case assetNotFound(String)
    /// No duplicate group has that identifier (now: groups change as files do).
    case duplicateGroupNotFound(String)
    /// A user's rating, title, caption or keywords that cannot be stored (the reason).
    case invalidUserDescription(String)
    /// A capture-time offset or zone the user gave that is none (the reason).
    case invalidCaptureTime(String)
    /// A change token older than the retained change history.
    case changeTokenExpired(token: ChangeToken, oldest: ChangeToken)
    /// A change token newer than any change: the library was rebuilt since, or the
    /// token is another library's.
    case changeTokenFromTheFuture(token: ChangeToken, current: ChangeToken)
    /// A write to a library opened without write access (the library folder).
    case readOnly(path: String)
    /// The database failed.
    case database(DatabaseError)
    /// A file system operation on the library's own folder or cache failed.
    case io(String)
    /// The disk holding the thumbnail cache is full.
    case cacheDiskFull(path: String)
    /// The thumbnail cache folder cannot be trusted: a symbolic link, another user's,
    /// or writable by group or others.
    case unsafeCacheFolder(path: String, reason: String)

    /// One sentence naming what failed.
    public var description: String {
        switch self {
        case .libraryPathIsAFile(let path):
            return "the library path \(path) is a file; give a folder (the library is stored as library.sqlite inside it)"
        case .notALibrary(let path, let reason):
            return "\(path) is not a MediaIndex library (\(reason)); it was left untouched"
        case .noLibrary(let path):
            return "no library at \(path)"
        case .newerSchema(let path, let found, let known):
            return "the library \(path) has schema version \(found), newer than this MediaIndex knows (\(known)); update MediaIndex"
        case .indexRunInProgress(let path, let holder):
            return "another index run is in progress on \(path) (\(holder)); try again when it finishes"
        case .noRoots:
            return "no roots are registered yet; give a folder to index"
        case .invalidRoot(let path, let reason):
            return "cannot index \(path): \(reason)"
        case .unknownRoot(let path):
            return "\(path) is not a registered root"
        case .assetNotFound(let key):
            return "no asset matches \(key)"
        case .duplicateGroupNotFound(let group):
            return "no duplicate group is \(group) now (groups change when their members do; list them again)"
        case .invalidUserDescription(let reason), .invalidCaptureTime(let reason):
            return reason
        case .changeTokenExpired(let token, let oldest):
            return "change token \(token) has expired (history now starts at \(oldest)); do a full sync, then ask for changes since the current token"
        case .changeTokenFromTheFuture(let token, let current):
            return "change token \(token) is newer than any change of this library (the current token is \(current)): the library was rebuilt since, or the token is another library's; do a full sync, then ask for changes since the current token"
        case .readOnly(let path):
            return "the library \(path) was opened read-only"
        case .database(let error):
            return Self.sentence(for: error)
        case .io(let reason):
            return reason
        case .cacheDiskFull(let path):
            return "the thumbnail cache's disk is full (writing \(path)); free some space, \(Remedy.smallerOrOtherCache)"
        case .unsafeCacheFolder(let path, let reason):
            return "the thumbnail cache folder \(path) is refused: \(reason); use a folder only you can write to (chmod 700), \(Remedy.otherCacheFolder)"
        }
    }

    /// What a SQLite failure means for the user, and what to do, in one sentence; the
    /// SQLite code follows in parentheses for a bug report.
    static func sentence(for error: DatabaseError) -> String {
        let file = error.path ?? "the library database"
        let folder = error.path.map { ($0 as NSString).deletingLastPathComponent } ?? "the library folder"
        let code = " (SQLite error \(error.extendedCode))"
        if error.message.hasPrefix("no such table") {
            return "the library \(folder) is incomplete: another process may be creating it right now; try again in a moment"
                + " (\(error.message))"
        }
        switch error.primaryCode {
        case 13:  // SQLITE_FULL
            return "the disk holding \(file) is full; free some space and run the command again" + code
        case 14:  // SQLITE_CANTOPEN
            return "cannot open \(file): the folder \(folder) must be readable and writable (SQLite keeps -wal and -shm files beside the database); check its permissions, \(Remedy.otherLibraryFolder)" + code
        case 8:  // SQLITE_READONLY
            return "cannot write to \(file): it or its folder \(folder) is read-only; check the permissions, \(Remedy.otherLibraryFolder)" + code
        case 5, 6:  // SQLITE_BUSY, SQLITE_LOCKED
            return "\(file) stayed locked by another process for longer than \(DatabaseConnection.busyTimeoutMilliseconds / 1000) s; try again" + code
        case 11, 26:  // SQLITE_CORRUPT, SQLITE_NOTADB
            return "\(file) is damaged; move it away and index again to rebuild it (favorites and albums are kept in user-state.sqlite)" + code
        case 10:  // SQLITE_IOERR
            return "reading or writing \(file) failed (\(error.message)); check the disk" + code
        default:
            return error.description
        }
    }

    /// The remedies the descriptions name in the library's own terms (a setting of
    /// `MediaLibrary` or `ThumbnailCache`); a front end says them in its own words (the
    /// CLI with its flags, `ErrorAdvice`).
    package enum Remedy {
        package static let smallerOrOtherCache = "lower the cache's size limit, or put the cache on another disk"
        package static let otherCacheFolder = "or choose another cache folder"
        package static let otherLibraryFolder = "or open a library in another folder"
    }

    /// Equal when they say the same.
    public static func == (a: LibraryError, b: LibraryError) -> Bool { a.description == b.description }
}
