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
    /// A change token older than the retained change history, or newer than any change.
    case changeTokenExpired(token: ChangeToken, oldest: ChangeToken)
    /// A write to a library opened without write access (the library folder).
    case readOnly(path: String)
    /// The database failed.
    case database(DatabaseError)
    /// A file system operation on the library's own folder or cache failed.
    case io(String)

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
        case .changeTokenExpired(let token, let oldest):
            return "change token \(token) has expired (history now starts at \(oldest)); do a full sync, then ask for changes since the current token"
        case .readOnly(let path):
            return "the library \(path) was opened read-only"
        case .database(let error):
            return error.description
        case .io(let reason):
            return reason
        }
    }

    /// Equal when they say the same.
    public static func == (a: LibraryError, b: LibraryError) -> Bool { a.description == b.description }
}
