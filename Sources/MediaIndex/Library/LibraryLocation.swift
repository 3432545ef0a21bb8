import Foundation

/// Where a library lives: the folder given, else `$MEDIAINDEX_LIBRARY`, else
/// `$XDG_DATA_HOME/mediaindex` (`~/.local/share/mediaindex`).
public struct LibraryLocation: Sendable, Equatable {
    /// The library folder.
    public let directory: String

    /// The library in `directory` (made absolute against the working folder).
    public init(directory: String) {
        self.directory = Self.absolute(directory)
    }

    /// Resolves the folder from an explicit path, then the environment.
    public static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> LibraryLocation {
        if let explicit, !explicit.isEmpty { return LibraryLocation(directory: explicit) }
        if let fromEnvironment = environment["MEDIAINDEX_LIBRARY"], !fromEnvironment.isEmpty {
            return LibraryLocation(directory: fromEnvironment)
        }
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return LibraryLocation(directory: dataHome + "/mediaindex")
    }

    /// The SQLite database file.
    public var databasePath: String { directory + "/library.sqlite" }
    /// The lock file that one index run holds.
    public var lockPath: String { directory + "/index.lock" }

    static func absolute(_ path: String) -> String {
        var result = path
        if !result.hasPrefix("/") {
            result = FileManager.default.currentDirectoryPath + "/" + result
        }
        return URL(fileURLWithPath: result).standardizedFileURL.path
    }
}
