import MediaIndex

/// The library's errors as the command line says them: the library's sentence, then
/// which command or flag helps. The library itself knows nothing of flags.
enum ErrorAdvice {
    /// The sentence to print after `Error: `.
    static func sentence(for error: any Error) -> String {
        switch error {
        case let error as LibraryError:
            switch error {
            case .noLibrary: return error.description + "; run 'mediaindex index FOLDER' first, or pass --library"
            case .indexRunInProgress: return error.description + ", or pass --wait"
            case .unknownRoot: return error.description + "; 'mediaindex roots' lists them"
            case .noRoots: return "no roots are registered yet; give a folder: mediaindex index ~/Pictures"
            default: return inFlagWords(error.description)
            }
        case let error as AssetQueryError:
            switch error {
            case .invalidCursor: return error.description + "; pass a nextCursor exactly as a previous page printed it"
            case .cursorSortMismatch: return error.description + "; page with the same --sort"
            case .albumOrderNeedsUserAlbum: return error.description + "; pass --album with a user album"
            case .unknownAlbum: return error.description + "; 'mediaindex albums' lists them"
            default: return error.description
            }
        case let error as DatabaseError:
            return inFlagWords(LibraryError.database(error).description)
        default:
            return String(describing: error)
        }
    }

    /// The library's remedies, said with the flags that apply them.
    static let flagWords: [(library: String, cli: String)] = [
        (LibraryError.Remedy.smallerOrOtherCache, "lower --cache-limit, or pass --cache DIR on another disk"),
        (LibraryError.Remedy.otherCacheFolder, "or pass --cache DIR"),
        (LibraryError.Remedy.otherLibraryFolder, "or pass --library"),
    ]

    /// A library sentence with its remedies in flag words.
    static func inFlagWords(_ sentence: String) -> String {
        flagWords.reduce(sentence) { $0.replacingOccurrences(of: $1.library, with: $1.cli) }
    }
}
