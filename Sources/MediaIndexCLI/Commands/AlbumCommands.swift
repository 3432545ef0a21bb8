import Foundation
import MediaIndex
import MediaIndexInterface

/// `mediaindex albums`: smart, user and folder albums with counts.
struct AlbumsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "albums",
        abstract: "List smart, user and folder albums with their counts.",
        discussion: "Smart albums other than Recents, Favorites and Hidden are listed only when they hold something."
    )

    static let json = Argument.flag("json", help: "Print a JSON array of albums.")
    static let arguments = ReadOnlyListingOptions.arguments(json: json)

    var options: ReadOnlyListingOptions

    init(parsed: ParsedArguments) throws {
        options = try ReadOnlyListingOptions(parsed: parsed, json: Self.json)
    }

    func run(in context: CommandContext) async throws {
        let albums = try await options.openLibrary(in: context).fetchAlbums()
        if options.json {
            context.standardOutput.writeLine(JSON.array(albums.map(JSONShapes.album)).prettyText)
            return
        }
        let dates = LocalDateFormatter()
        let depth = Dictionary(uniqueKeysWithValues: albums.map { ($0.id, $0.parentID) })
        func level(_ id: Album.ID) -> Int {
            var count = 0
            var current = depth[id] ?? nil
            while let parent = current, count < 256 { count += 1; current = depth[parent] ?? nil }
            return count
        }
        func day(_ time: Date?) -> String {
            guard let time else { return "" }
            return String(dates.string(fromISO8601: JSONShapes.isoUTC(time)).prefix(10))
        }
        let table = TableRenderer(columns: [
            TableColumn("ALBUM", truncation: .middle), TableColumn("KIND", isTruncatable: false),
            TableColumn("IMAGES", alignment: .right, isTruncatable: false),
            TableColumn("VIDEOS", alignment: .right, isTruncatable: false),
            TableColumn("WITH SUBFOLDERS", alignment: .right, isTruncatable: false),
            TableColumn("DATES", isTruncatable: false), TableColumn("ID", isTruncatable: false),
        ])
        let rows = albums.map { album -> [String] in
            let indent = String(repeating: "  ", count: album.kind == .folder ? level(album.id) : 0)
            // A top folder shows its path; one titled otherwise (a Google Takeout album) its title first.
            var title = album.title
            if album.kind == .folder, album.parentID == nil, let path = album.path {
                title = album.title == String(decoding: path.lastComponent, as: UTF8.self)
                    ? path.displayString : "\(album.title) (\(path.displayString))"
            }
            // The camera's days when known (issue 35 item 12), else this machine's.
            let start = album.startDay ?? day(album.startDate), end = album.endDay ?? day(album.endDate)
            let range = album.startDate == nil ? "" : start == end ? start : "\(start) – \(end)"
            let withSubfolders = album.kind == .folder && album.countWithSubfolders != album.count
                ? String(album.countWithSubfolders) : ""
            return [indent + title, album.kind.rawValue, String(album.imageCount), String(album.videoCount), withSubfolders,
                    range, album.id.description]
        }
        context.standardOutput.writeLine(table.render(rows, maxWidth: context.terminalWidth))
    }
}

/// `mediaindex album create|rename|delete|add|remove|move|key …`: edits user albums.
struct AlbumCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "album",
        abstract: "Edit user albums: create, rename, delete, add, remove, move, key.",
        discussion: """
            album create TITLE; album rename ALBUM TITLE; album delete ALBUM; album add ALBUM ID…; \
            album remove ALBUM ID…; album move ALBUM ID… --to INDEX; album key ALBUM ID. \
            ALBUM is an album id (user.…) or a title. Albums hold assets by identifier and are kept \
            in user-state.sqlite, so they survive re-index, moves and rebuilds.
            """
    )

    static let action = Argument.positional("action", help: "create, rename, delete, add, remove, move or key.")
    static let values = Argument.positionals("arguments", help: "The album, then a title or asset identifiers.")
    static let index = Argument.option("to", valueName: "index", as: Int.self, help: "For move: the 0-based position the assets move to.")
    static let json = Argument.flag("json", help: "Print the created album as JSON.")
    static let arguments = LibraryOptions.arguments + declared(action, values, index, json)

    static let actions = ["create", "rename", "delete", "add", "remove", "move", "key"]

    var library: LibraryOptions
    var action: String
    var values: [String]
    var index: Int?
    var json: Bool

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        action = try parsed[Self.action]
        values = try parsed[Self.values]
        index = try parsed[Self.index]
        json = try parsed[Self.json]
    }

    func validate() throws {
        guard Self.actions.contains(action) else {
            throw ValidationError("unknown action '\(action)'; the actions are " + Self.actions.joined(separator: ", "))
        }
        let needed: Int
        switch action {
        case "create", "delete": needed = 1
        case "rename", "key": needed = 2
        default: needed = 2
        }
        if ["create", "delete", "rename", "key"].contains(action) && values.count != needed {
            throw ValidationError("'album \(action)' takes \(needed) argument\(needed == 1 ? "" : "s"), not \(values.count)")
        }
        if values.count < needed { throw ValidationError("'album \(action)' needs the album and at least one asset identifier") }
        if action == "move" && index == nil { throw ValidationError("'album move' needs --to INDEX") }
        if let index, index < 0 { throw ValidationError("--to must not be negative") }
    }

    func run(in context: CommandContext) async throws {
        let mediaLibrary = try library.open(.create, in: context)
        // Titles are the user's text; JSON output has no raw control characters to escape.
        let say = { (text: String) in context.standardOutput.writeLine(TerminalSanitizer.escape(text)) }
        do {
            if action == "create" {
                let album = try await mediaLibrary.createAlbum(title: values[0])
                say(json ? JSONShapes.album(album).prettyText : "Created \(album.title): \(album.id)")
                return
            }
            let album = try await mediaLibrary.userAlbumID(named: values[0])
            let assets = Array(values.dropFirst())
            switch action {
            case "rename":
                try await mediaLibrary.renameAlbum(album, to: values[1])
                say("Renamed to \(values[1]).")
            case "delete":
                try await mediaLibrary.deleteAlbum(album)
                say("Deleted \(values[0]); its assets stay in the library.")
            case "add":
                let added = try await mediaLibrary.addAssets(try AssetArgument.identifiers(assets), toAlbum: album)
                say("Added \(added) to \(values[0])" + (added < assets.count ? " (\(assets.count - added) already in it)." : "."))
            case "remove":
                // Removing what is not there is no error: text that is no identifier is in no album.
                try await mediaLibrary.removeAssets(assets.compactMap(AssetArgument.id), fromAlbum: album)
                say("Removed \(assets.count) from \(values[0]).")
            case "move":
                let landed = try await mediaLibrary.moveAssets(try AssetArgument.identifiers(assets), inAlbum: album, to: index ?? 0)
                say("Moved \(assets.count) to position \(landed)" + (landed < (index ?? 0) ? ", the last there is." : "."))
            default:
                try await mediaLibrary.setKeyAsset(try AssetArgument.identifiers([values[1]])[0], ofAlbum: album)
                say("Key asset of \(values[0]) is \(values[1]).")
            }
        } catch let error as AssetQueryError {
            // A taken title is a refusal of the library's, not a bad command line: exit 1.
            if case .albumTitleTaken = error { throw error }
            throw ValidationError(ErrorAdvice.sentence(for: error))
        }
    }
}

/// A user flag that `favorite`, `unfavorite`, `hide` and `unhide` set or clear.
enum UserFlag: Sendable {
    case favorite, hidden
}

/// `mediaindex favorite|unfavorite|hide|unhide ID…`: each command names its flag, the value
/// it sets and the verb it reports; the identifiers, the library and the work are shared.
protocol UserFlagCommand: ParsableCommand {
    /// The flag the command changes.
    static var flag: UserFlag { get }
    /// The value it gives the flag.
    static var value: Bool { get }
    /// What the report says was done (`Hid`).
    static var verb: String { get }
    init(library: LibraryOptions, ids: [String])
    var library: LibraryOptions { get }
    var ids: [String] { get }
}

/// The identifiers every user-flag command takes.
let userFlagIdentifiers = Argument.positionals("ids", isRequired: true, help: "Asset identifiers.")

extension UserFlagCommand {
    static var arguments: [ArgumentDefinition] { LibraryOptions.arguments + declared(userFlagIdentifiers) }

    init(parsed: ParsedArguments) throws {
        self.init(library: try LibraryOptions(parsed: parsed), ids: try parsed[userFlagIdentifiers])
    }

    func run(in context: CommandContext) async throws {
        let mediaLibrary = try library.open(.create, in: context)
        let identifiers = try AssetArgument.identifiers(ids)
        switch Self.flag {
        case .favorite: try await mediaLibrary.setFavorite(Self.value, for: identifiers)
        case .hidden: try await mediaLibrary.setHidden(Self.value, for: identifiers)
        }
        context.standardOutput.writeLine("\(Self.verb): \(ids.count) asset\(ids.count == 1 ? "" : "s").")
    }
}

/// `mediaindex favorite ID…`.
struct FavoriteCommand: UserFlagCommand {
    static let configuration = CommandConfiguration(name: "favorite", abstract: "Mark assets as favorites.")
    static let flag = UserFlag.favorite, value = true, verb = "Marked as favorite"
    var library: LibraryOptions
    var ids: [String]
}

/// `mediaindex unfavorite ID…`.
struct UnfavoriteCommand: UserFlagCommand {
    static let configuration = CommandConfiguration(name: "unfavorite", abstract: "Unmark favorite assets.")
    static let flag = UserFlag.favorite, value = false, verb = "Unmarked as favorite"
    var library: LibraryOptions
    var ids: [String]
}

/// `mediaindex hide ID…`.
struct HideCommand: UserFlagCommand {
    static let configuration = CommandConfiguration(name: "hide", abstract: "Hide assets from listings (see --include-hidden).")
    static let flag = UserFlag.hidden, value = true, verb = "Hid"
    var library: LibraryOptions
    var ids: [String]
}

/// `mediaindex unhide ID…`.
struct UnhideCommand: UserFlagCommand {
    static let configuration = CommandConfiguration(name: "unhide", abstract: "Show hidden assets again.")
    static let flag = UserFlag.hidden, value = false, verb = "Unhid"
    var library: LibraryOptions
    var ids: [String]
}
