import MediaIndex

/// `mediaindex`: the root command.
public struct MediaIndexCommand: ParsableCommand {
    public static let version = "0.1.0"

    public static let configuration = CommandConfiguration(
        name: "mediaindex",
        abstract: "Index photo and video folders and answer a photo picker's questions.",
        discussion: """
            The library lives in --library DIR, else $MEDIAINDEX_LIBRARY, else \
            $XDG_DATA_HOME/mediaindex (~/.local/share/mediaindex).
            """,
        version: version,
        subcommands: [IndexCommand.self, WatchCommand.self, RootsCommand.self, StatsCommand.self, AssetsCommand.self, SearchCommand.self,
                      ShowCommand.self, CamerasCommand.self, ErrorsCommand.self, ChangesCommand.self, AlbumsCommand.self, AlbumCommand.self,
                      FavoriteCommand.self, UnfavoriteCommand.self, HideCommand.self, UnhideCommand.self,
                      DescribeCommand.self, ExportXMPCommand.self,
                      ThumbnailCommand.self, ThumbnailsCommand.self, DuplicatesCommand.self, ServeCommand.self, PickCommand.self, PlaceCommand.self],
        manualSections: [
            ManualSection(title: "Environment", paragraphs: [
                "MEDIAINDEX_LIBRARY: the library folder when --library is not given; else $XDG_DATA_HOME/mediaindex, else ~/.local/share/mediaindex.",
                "MEDIAINDEX_CACHE: the thumbnail cache folder when --cache is not given; else $XDG_CACHE_HOME/mediaindex, else ~/.cache/mediaindex.",
            ]),
            ManualSection(title: "Files", paragraphs: [
                "LIBRARY/library.sqlite: the index (SQLite, WAL), rebuilt from the files when deleted.",
                "LIBRARY/user-state.sqlite: favorites, hidden marks and user albums, kept by asset identifier.",
                "LIBRARY/index.lock: held by the running index run.",
            ]),
            ManualSection(title: "Exit status", paragraphs: [
                "0 success (files that could not be read are recorded, not fatal); 1 the command failed; "
                    + "3 an expired change token (changes); 64 bad command line; 75 another index run holds the library.",
            ]),
        ]
    )

    public init(parsed: ParsedArguments) throws {}
}

/// `--library DIR`, shared by every command.
struct LibraryOptions: ParsableArguments {
    static let library = Argument.option(
        "library", valueName: "dir", help: "The library folder (default: $MEDIAINDEX_LIBRARY, else $XDG_DATA_HOME/mediaindex)."
    )
    static let arguments = declared(library)

    var explicitDirectory: String?

    init(parsed: ParsedArguments) throws {
        explicitDirectory = try parsed[Self.library]
    }

    func location(in context: CommandContext) -> LibraryLocation {
        LibraryLocation.resolve(explicit: explicitDirectory, environment: context.environment)
    }

    /// Opens the library: `.readOnly` for listings, `.existing` where user or thumbnail
    /// state is written, `.create` to index or edit; thumbnails go to `cache` (the
    /// environment's cache folder unless `--cache` says).
    func open(_ mode: MediaLibrary.AccessMode, cache: CacheOptions? = nil, in context: CommandContext) throws -> MediaLibrary {
        let thumbnails = cache?.cache(in: context) ?? ThumbnailCache.resolve(explicit: nil, environment: context.environment)
        return try MediaLibrary(location: location(in: context), mode: mode, cache: thumbnails)
    }
}

/// `--library` and `--json`: all a listing that only reads the library takes (`albums`,
/// `cameras`, `stats`). Each command declares its own `--json`, with its words for what
/// it prints, and hands it over: `ReadOnlyListingOptions(parsed: parsed, json: Self.json)`.
struct ReadOnlyListingOptions: Sendable {
    /// The declarations of `--library` and of the command's `--json`.
    static func arguments(json: ArgumentKey<Bool>) -> [ArgumentDefinition] {
        LibraryOptions.arguments + declared(json)
    }

    var library: LibraryOptions
    /// Whether `--json` was given.
    var json: Bool

    init(parsed: ParsedArguments, json: ArgumentKey<Bool>) throws {
        library = try LibraryOptions(parsed: parsed)
        self.json = try parsed[json]
    }

    /// The library, opened read-only.
    func openLibrary(in context: CommandContext) throws -> MediaLibrary {
        try library.open(.readOnly, in: context)
    }
}

/// `--json` / `--jsonl` output choice, shared by listing commands.
enum OutputFormat {
    case table, json, jsonLines
}
