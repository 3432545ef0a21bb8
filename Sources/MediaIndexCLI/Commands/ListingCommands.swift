import Foundation
import MediaIndex
import MediaIndexInterface

// `mediaindex assets` lives in AssetsCommand.swift.

/// `mediaindex show ID|PATH`: one asset in full.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "show",
        abstract: "Show one asset, by identifier or by the path of one of its files."
    )

    static let asset = Argument.positional("asset", as: RawArgument.self, help: "An asset identifier, or a file path.")
    static let json = Argument.flag("json", help: "Print the asset as JSON.")
    static let arguments = LibraryOptions.arguments + declared(asset, json, FieldsOption.fields)

    var library: LibraryOptions
    var key: RawArgument
    var json: Bool
    var fields: AssetFieldSelection?

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        key = try parsed[Self.asset]
        json = try parsed[Self.json]
        fields = try FieldsOption.selection(parsed)
    }

    func run(in context: CommandContext) async throws {
        let asset = try await AssetArgument.asset(named: key, in: library.open(.readOnly, in: context))
        if json {
            context.standardOutput.writeLine(JSONShapes.asset(asset, fields: fields).prettyText)
            return
        }
        if let fields {
            for line in FieldsOption.lines(asset, fields) { context.standardOutput.writeLine(line) }
            return
        }
        let dates = LocalDateFormatter(includesSeconds: true)
        var lines: [(String, String)] = [
            ("Identifier", asset.id.description),
            ("Type", ([asset.mediaType.rawValue] + asset.mediaSubtypes.names).joined(separator: ", ")),
        ]
        if let time = asset.captureTime { lines.append(("Created", dates.string(asRecorded: time))) }
        if let w = asset.pixelWidth, let h = asset.pixelHeight { lines.append(("Size", "\(w) × \(h)")) }
        if let o = asset.orientation, o != 1 { lines.append(("Orientation", String(o))) }
        if let d = asset.duration { lines.append(("Duration", HumanReadable.duration(seconds: d))) }
        if let r = asset.frameRate { lines.append(("Frame rate", String(format: "%.3g fps", r))) }
        if let c = asset.videoCodec { lines.append(("Codec", c)) }
        let camera = [asset.cameraMake, asset.cameraModel].compactMap { $0 }.joined(separator: " ")
        if !camera.isEmpty { lines.append(("Camera", camera)) }
        if let lens = asset.lensModel { lines.append(("Lens", lens)) }
        if let exposure = asset.exposureSummary { lines.append(("Exposure", exposure)) }
        if let l = asset.location {
            var text = String(format: "%.6f, %.6f", l.latitude, l.longitude)
            if let alt = l.altitude { text += String(format: ", %.1f m", alt) }
            lines.append(("Location", text))
        }
        if let c = asset.contentIdentifier { lines.append(("Content ID", c)) }
        if let b = asset.burstIdentifier { lines.append(("Burst ID", b)) }
        lines.append(("Playback", asset.playbackStyle.rawValue))
        if asset.hasAdjustments {
            var edit = "yes"
            if let adjustments = asset.adjustments {
                let date = adjustments.date.map { " " + JSONShapes.isoUTC($0) } ?? ""
                edit += " (" + (adjustments.formatIdentifier ?? "unknown format") + (adjustments.formatVersion.map { " " + $0 } ?? "")
                    + (adjustments.editorBundleID.map { ", by " + $0 } ?? "") + date + ")"
            }
            lines.append(("Edited", edit))
        }
        if let t = asset.takeoutTitle { lines.append(("Takeout title", t)) }
        if let d = asset.takeoutDescription { lines.append(("Description", d)) }
        lines.append(("Favorite", asset.isFavorite ? "yes" : "no"))
        lines.append(("Hidden", asset.isHidden ? "yes" : "no"))
        lines.append(("Albums", asset.albums.isEmpty ? "none" : asset.albums.map(\.rawValue).joined(separator: ", ")))
        lines.append(("Revision", String(asset.revision)))
        for resource in asset.resources {
            lines.append(("Resource", "\(resource.type.rawValue): \(resource.path.displayString) (\(HumanReadable.byteCount(resource.bytes)), \(resource.uniformType?.preferredMIMEType ?? "?"))"))
            // Its other names: the same file (hard links, bind-mounted or linked views).
            // At most 20 lines of them (a file may have thousands of names; `--json` has all).
            for other in resource.otherPaths.prefix(20) { lines.append(("Also at", other.displayString)) }
            if resource.otherPaths.count > 20 {
                lines.append(("Also at", "… \(resource.otherPaths.count - 20) more names (all in --json's paths)"))
            }
        }
        let width = lines.map { $0.0.count }.max() ?? 0
        for (label, value) in lines {
            context.standardOutput.writeLine(label.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                                             + TerminalSanitizer.escape(value))
        }
    }
}

/// `mediaindex errors`: files that could not be read; with `--warnings`, files read
/// only in part.
struct ErrorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "errors",
        abstract: "List files that could not be read, with the reason.",
        discussion: "A file is retried when it changes. --warnings lists instead the files that were read with warnings (a damaged structure, a size that could not be found): their assets hold what could be read."
    )

    static let limit = Argument.option("limit", valueName: "n", as: Int.self, help: "Print at most this many files (by path).")
    static let warnings = Argument.flag("warnings", help: "List the files read with warnings instead, each warning on its own line.")
    static let json = Argument.flag("json", help: "Print a JSON array.")
    static let arguments = LibraryOptions.arguments + declared(limit, warnings, json)

    var library: LibraryOptions
    var limit: Int?
    var warnings: Bool
    var json: Bool

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        limit = try parsed[Self.limit]
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
        warnings = try parsed[Self.warnings]
        json = try parsed[Self.json]
    }

    func run(in context: CommandContext) async throws {
        let opened = try library.open(.readOnly, in: context)
        if warnings {
            let all = try await opened.warnings()
            let shown = limit.map { Array(all.prefix($0)) } ?? all
            if json {
                context.standardOutput.writeLine(JSON.array(shown.map(JSONShapes.warning)).prettyText)
                return
            }
            let rows = shown.flatMap { file in file.messages.map { [file.path.displayString, $0] } }
            printTable(rows, header: "WARNING", none: "No warnings.", shown: shown.count, total: all.count, in: context)
            return
        }
        let all = try await opened.errors()
        let errors = limit.map { Array(all.prefix($0)) } ?? all
        if json {
            context.standardOutput.writeLine(JSON.array(errors.map(JSONShapes.error)).prettyText)
            return
        }
        printTable(errors.map { [$0.path.displayString, $0.message] }, header: "ERROR", none: "No errors.",
              shown: errors.count, total: all.count, in: context)
    }

    /// A FILE column and a reason column, or `none` when there are no rows, and how many
    /// files `--limit` left out.
    private func printTable(_ rows: [[String]], header: String, none: String, shown: Int, total: Int, in context: CommandContext) {
        guard !rows.isEmpty else {
            context.standardOutput.writeLine(none)
            return
        }
        let table = TableRenderer(columns: [TableColumn("FILE", truncation: .middle), TableColumn(header)])
        context.standardOutput.writeLine(table.render(rows, maxWidth: context.terminalWidth))
        if shown < total {
            context.standardOutput.writeLine("\(total - shown) more; --limit \(total) shows all.")
        }
    }
}

/// `mediaindex stats`: counts over the library.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(name: "stats", abstract: "Show counts over the library.")

    static let json = Argument.flag("json", help: "Print the counts as JSON.")
    static let arguments = ReadOnlyListingOptions.arguments(json: json)

    var options: ReadOnlyListingOptions

    init(parsed: ParsedArguments) throws {
        options = try ReadOnlyListingOptions(parsed: parsed, json: Self.json)
    }

    func run(in context: CommandContext) async throws {
        let mediaLibrary = try options.openLibrary(in: context)
        let s = try await mediaLibrary.statistics()
        if options.json {
            context.standardOutput.writeLine(JSON.object([
                ("library", .string(mediaLibrary.location.directory)),
                ("schemaVersion", .int(s.schemaVersion)),
                ("roots", .int(s.roots)), ("assets", .int(s.assets)), ("images", .int(s.images)),
                ("videos", .int(s.videos)), ("files", .int(s.files)), ("errors", .int(s.errors)),
                ("skipped", .int(s.ignored)), ("bytes", .int(Int(s.totalBytes))),
                ("byFormat", .object(s.byFormat.map { ($0.format, JSON.int($0.count)) })),
                ("lastRun", s.lastRun.map(JSONShapes.summary) ?? .null),
            ]).prettyText)
            return
        }
        let out = context.standardOutput
        out.writeLine("Library   \(mediaLibrary.location.directory)")
        out.writeLine("Roots     \(s.roots)")
        out.writeLine("Assets    \(s.assets)  (\(s.images) images, \(s.videos) videos, \(HumanReadable.byteCount(s.totalBytes)))")
        out.writeLine("Errors    \(s.errors)")
        out.writeLine("Skipped   \(s.ignored)  (not images or videos)")
        if !s.byFormat.isEmpty {
            out.writeLine("Formats   " + s.byFormat.map { "\($0.format) \($0.count)" }.joined(separator: ", "))
        }
        if let run = s.lastRun {
            out.writeLine("Last run  " + IndexCommand.summaryText(run))
        }
    }
}

/// `mediaindex roots` lists the roots; `mediaindex roots remove ROOT` forgets one.
struct RootsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "roots",
        abstract: "List the registered roots, or forget one with 'roots remove ROOT'.",
        discussion: "Forgetting a root removes its files and assets from the library; the files themselves are never touched."
    )

    static let action = Argument.optionalPositional("action", help: "'remove' to forget a root.")
    static let root = Argument.optionalPositional("root", as: RawArgument.self, help: "The root to forget.")
    static let json = Argument.flag("json", help: "Print the roots as JSON.")
    static let arguments = LibraryOptions.arguments + declared(action, root, json)

    var library: LibraryOptions
    var action: String?
    var root: RawArgument?
    var json: Bool

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        action = try parsed[Self.action]
        root = try parsed[Self.root]
        json = try parsed[Self.json]
    }

    func validate() throws {
        switch action {
        case nil: break
        case "remove"?:
            if root == nil { throw ValidationError("'roots remove' needs the root to forget") }
        case let other?:
            throw ValidationError("unknown action '\(other)'; the only action is 'remove'")
        }
    }

    func run(in context: CommandContext) async throws {
        if action == "remove", let root {
            try await library.open(.create, in: context).removeRoot(PathBytes(root.bytes))
            context.standardOutput.writeLine("Forgot \(TerminalSanitizer.escape(root.string)) and its assets.")
            return
        }
        let roots = try await library.open(.readOnly, in: context).roots()
        if json {
            context.standardOutput.writeLine(JSON.array(roots.map { r in
                .object([("path", .string(r.path.displayString)), ("assets", .int(r.assetCount)),
                         ("errors", .int(r.errorCount)), ("addedDate", .string(JSONShapes.isoUTC(r.addedDate))),
                         ("lastIndexedDate", r.lastIndexedDate.map { .string(JSONShapes.isoUTC($0)) } ?? .null)])
            }).prettyText)
        } else if roots.isEmpty {
            context.standardOutput.writeLine("No roots. Add one: mediaindex index ~/Pictures")
        } else {
            let dates = LocalDateFormatter()
            let table = TableRenderer(columns: [TableColumn("ROOT", truncation: .middle), TableColumn("ASSETS", alignment: .right),
                                                TableColumn("ERRORS", alignment: .right), TableColumn("LAST INDEXED")])
            context.standardOutput.writeLine(table.render(roots.map {
                [$0.path.displayString, String($0.assetCount), String($0.errorCount),
                 $0.lastIndexedDate.map { dates.string(fromISO8601: JSONShapes.isoUTC($0)) } ?? "never"]
            }, maxWidth: context.terminalWidth))
        }
    }
}
