import Foundation
import MediaIndex
import MediaIndexInterface

/// `mediaindex albums`: smart, user and folder albums with counts.
struct AlbumsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "albums",
        abstract: "List smart, Places, user and folder albums with their counts.",
        discussion: "Smart albums other than Recents, Favorites and Hidden are listed only when they hold something."
    )

    static let arguments = ReadOnlyListingOptions.arguments(json: "Print a JSON array of albums.") + [
        .option("in", valueName: "album",
                help: "List the albums inside a Places album instead: place (countries), place.CC (its regions), place.CC.REGION (its cities)."),
    ]

    var options: ReadOnlyListingOptions
    /// `--in`: the Places album whose children to list.
    var parent: Album.ID?

    init(parsed: ParsedArguments) throws {
        options = try ReadOnlyListingOptions(parsed: parsed)
        if let text = parsed.option("in") {
            guard let id = Album.ID(text), id.kind == .place else {
                throw ValidationError("--in takes a Places album id (place, place.JP, place.JP.40), not '\(text)'")
            }
            parent = id
        }
    }

    func run(in context: CommandContext) async throws {
        let library = try options.openLibrary(in: context)
        let albums: [Album]
        if let parent {
            albums = try await library.fetchAlbums(in: parent)
        } else {
            albums = try await library.fetchAlbums()
        }
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
            let indent = String(repeating: "  ", count: album.kind == .folder || album.kind == .place ? level(album.id) : 0)
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

    static let arguments: [ArgumentDefinition] = LibraryOptions.arguments + [
        .positional("action", help: "create, rename, delete, add, remove, move or key."),
        .positional("arguments", arity: .zeroOrMore, help: "The album, then a title or asset identifiers."),
        .option("to", valueName: "index", help: "For move: the 0-based position the assets move to."),
        .flag("json", help: "Print the created album as JSON."),
    ]

    static let actions = ["create", "rename", "delete", "add", "remove", "move", "key"]

    var library: LibraryOptions
    var action: String
    var values: [String]
    var index: Int?
    var json: Bool

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        action = parsed.positional("action") ?? ""
        values = parsed.positionals("arguments")
        index = try parsed.option("to", as: Int.self)
        json = parsed.flag("json")
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

/// `mediaindex favorite|unfavorite|hide|unhide ID…`.
struct UserFlagCommand: ParsableCommand {
    static let configuration = CommandConfiguration(name: "favorite", abstract: "Mark assets as favorites.")
    static let arguments: [ArgumentDefinition] = LibraryOptions.arguments + [
        .positional("ids", arity: .oneOrMore, help: "Asset identifiers."),
    ]

    var library: LibraryOptions
    var ids: [String]

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        ids = parsed.positionals("ids")
    }

    static func apply(_ command: UserFlagCommand, flag: String, value: Bool, in context: CommandContext) async throws {
        let mediaLibrary = try command.library.open(.create, in: context)
        let ids = try AssetArgument.identifiers(command.ids)
        if flag == "favorite" { try await mediaLibrary.setFavorite(value, for: ids) }
        else { try await mediaLibrary.setHidden(value, for: ids) }
        let verb = flag == "favorite" ? (value ? "Marked as favorite" : "Unmarked as favorite") : (value ? "Hid" : "Unhid")
        context.standardOutput.writeLine("\(verb): \(command.ids.count) asset\(command.ids.count == 1 ? "" : "s").")
    }

    func run(in context: CommandContext) async throws {
        try await Self.apply(self, flag: "favorite", value: true, in: context)
    }
}

/// `mediaindex unfavorite ID…`.
struct UnfavoriteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(name: "unfavorite", abstract: "Unmark favorite assets.")
    static let arguments = UserFlagCommand.arguments
    var base: UserFlagCommand
    init(parsed: ParsedArguments) throws { base = try UserFlagCommand(parsed: parsed) }
    func run(in context: CommandContext) async throws {
        try await UserFlagCommand.apply(base, flag: "favorite", value: false, in: context)
    }
}

/// `mediaindex hide ID…`.
struct HideCommand: ParsableCommand {
    static let configuration = CommandConfiguration(name: "hide", abstract: "Hide assets from listings (see --include-hidden).")
    static let arguments = UserFlagCommand.arguments
    var base: UserFlagCommand
    init(parsed: ParsedArguments) throws { base = try UserFlagCommand(parsed: parsed) }
    func run(in context: CommandContext) async throws {
        try await UserFlagCommand.apply(base, flag: "hidden", value: true, in: context)
    }
}

/// `mediaindex unhide ID…`.
struct UnhideCommand: ParsableCommand {
    static let configuration = CommandConfiguration(name: "unhide", abstract: "Show hidden assets again.")
    static let arguments = UserFlagCommand.arguments
    var base: UserFlagCommand
    init(parsed: ParsedArguments) throws { base = try UserFlagCommand(parsed: parsed) }
    func run(in context: CommandContext) async throws {
        try await UserFlagCommand.apply(base, flag: "hidden", value: false, in: context)
    }
}
