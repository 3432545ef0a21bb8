/// Why a library operation failed. Each case reads as one sentence a user can act on.
public enum LibraryError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The library path names a regular file, not a folder.
    case libraryPathIsAFile(path: String)
    /// `library.sqlite` exists but is not a SQLite database, or not ours.
    case notALibrary(path: String, reason: String)
    /// No library exists yet where a read was asked for.
    case noLibrary(path: String)
    /// The database was written by a newer MediaIndex.
    case newerSchema(path: String, found: Int, known: Int)
    /// Another index run holds the library's lock.
    case indexRunInProgress(path: String, holder: String)
    /// A root folder cannot be used.
    case invalidRoot(path: String, reason: String)
    /// A root that is not registered.
    case unknownRoot(path: String)
    /// No asset with that identifier or path.
    case assetNotFound(String)
    /// A change token older than the retained change history.
    case changeTokenExpired(token: Int64, oldest: Int64)
    /// The database failed.
    case database(DatabaseError)
    /// A file system operation on the library's own folder failed.
    case io(String)

    public var description: String {
        switch self {
        case .libraryPathIsAFile(let path):
            return "the library path \(path) is a file; give a folder (the library is stored as library.sqlite inside it)"
        case .notALibrary(let path, let reason):
            return "\(path) is not a MediaIndex library (\(reason)); it was left untouched"
        case .noLibrary(let path):
            return "no library at \(path); run 'mediaindex index FOLDER' first, or pass --library"
        case .newerSchema(let path, let found, let known):
            return "the library \(path) has schema version \(found), newer than this MediaIndex knows (\(known)); update MediaIndex"
        case .indexRunInProgress(let path, let holder):
            return "another index run is in progress on \(path) (\(holder)); try again when it finishes, or pass --wait"
        case .invalidRoot(let path, let reason):
            return "cannot index \(path): \(reason)"
        case .unknownRoot(let path):
            return "\(path) is not a registered root; 'mediaindex roots' lists them"
        case .assetNotFound(let key):
            return "no asset matches \(key)"
        case .changeTokenExpired(let token, let oldest):
            return "change token \(token) has expired (history now starts at \(oldest)); do a full sync, then ask for changes since the current token"
        case .database(let error):
            return error.description
        case .io(let reason):
            return reason
        }
    }

    public static func == (a: LibraryError, b: LibraryError) -> Bool { a.description == b.description }
}
