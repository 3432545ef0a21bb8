import MediaIndex
import MediaIndexInterface

/// `mediaindex describe ID… [--rating N] [--title T] [--caption C] [--keyword K …] [--clear FIELD …]`.
struct DescribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "describe",
        abstract: "Set your own rating, title, caption or keywords.",
        discussion: """
            Kept in user state (by asset identifier, through re-indexing and rebuilds); the files are never written \
            (export-xmp writes them into .xmp sidecars). Keywords replace the asset's own; \
            a hierarchy is a path: --keyword 'Places|France|Paris'.
            """
    )

    static let fields = ["rating", "title", "caption", "keywords"]
    static let rating = Argument.option("rating", valueName: "stars", as: Int.self, help: "Stars from -1 (rejected) to 5.")
    static let title = Argument.option("title", help: "The title.")
    static let caption = Argument.option("caption", help: "The caption.")
    static let keywords = Argument.repeatableOption("keyword", help: "A keyword (repeat for several).")
    static let clear = Argument.repeatableOption("clear", valueName: "field", help: "Clear a field: rating, title, caption or keywords.")
    static let ids = Argument.positionals("ids", isRequired: true, help: "Asset identifiers.")
    static let arguments = LibraryOptions.arguments + declared(rating, title, caption, keywords, clear, ids)

    var library: LibraryOptions
    var ids: [String]
    var edit = UserDescriptionEdit()

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        ids = try parsed[Self.ids]
        if let rating = try parsed[Self.rating] {
            guard (-1...5).contains(rating) else { throw ValidationError("--rating takes -1 (rejected) to 5 stars, not \(rating)") }
            edit.rating = .set(rating)
        }
        if let title = try parsed[Self.title] { edit.title = .set(title) }
        if let caption = try parsed[Self.caption] { edit.caption = .set(caption) }
        let keywords = try parsed[Self.keywords]
        if !keywords.isEmpty { edit.keywords = .set(keywords) }
        for field in try parsed[Self.clear] {
            switch field {
            case "rating": edit.rating = .clear
            case "title": edit.title = .clear
            case "caption": edit.caption = .clear
            case "keywords": edit.keywords = .clear
            default: throw ValidationError("--clear takes rating, title, caption or keywords, not '\(field)'")
            }
        }
        if edit.isEmpty { throw ValidationError("give --rating, --title, --caption, --keyword or --clear") }
    }

    func run(in context: CommandContext) async throws {
        let mediaLibrary = try library.open(.create, in: context)
        try await mediaLibrary.setUserDescription(edit, for: try AssetArgument.identifiers(ids))
        context.standardOutput.writeLine("Described: \(ids.count) asset\(ids.count == 1 ? "" : "s").")
    }
}

/// `mediaindex export-xmp [--dry-run] [--json]`.
struct ExportXMPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "export-xmp",
        abstract: "Write your own words into new .xmp sidecars.",
        discussion: """
            Writes NAME.EXT.xmp beside each described asset's file; never an original, never a \
            sidecar that exists (another tool's is left as it is, and listed).
            """
    )

    static let dryRun = Argument.flag("dry-run", help: "List what would be written; write nothing.")
    static let json = Argument.flag("json", help: "Print [{\"id\", \"path\", \"outcome\"}] (outcome: written or sidecarExists).")
    static let arguments = LibraryOptions.arguments + declared(dryRun, json)

    var library: LibraryOptions
    var dryRun: Bool
    var json: Bool

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        dryRun = try parsed[Self.dryRun]
        json = try parsed[Self.json]
    }

    func run(in context: CommandContext) async throws {
        let exports = try await library.open(.existing, in: context).exportUserDescriptionsToXMP(dryRun: dryRun)
        if json {
            context.standardOutput.writeLine(JSON.array(exports.map { export in
                .object([("id", JSON(export.asset.description)), ("path", JSON(export.path.displayString)),
                         ("outcome", JSON(export.outcome.rawValue))])
            }).prettyText)
            return
        }
        for export in exports {
            let verb = export.outcome == .written ? (dryRun ? "would write" : "wrote") : "kept existing"
            context.standardOutput.writeLine("\(verb) \(export.path.displayString)")
        }
        let written = exports.filter { $0.outcome == .written }.count
        context.standardOutput.writeLine("\(dryRun ? "Would write" : "Wrote") \(written) sidecar\(written == 1 ? "" : "s").")
    }
}
