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
    static let arguments: [ArgumentDefinition] = LibraryOptions.arguments + [
        .option("rating", valueName: "stars", help: "Stars from -1 (rejected) to 5."),
        .option("title", help: "The title."),
        .option("caption", help: "The caption."),
        .repeatableOption("keyword", help: "A keyword (repeat for several)."),
        .repeatableOption("clear", valueName: "field", help: "Clear a field: rating, title, caption or keywords."),
        .positional("ids", arity: .oneOrMore, help: "Asset identifiers."),
    ]

    var library: LibraryOptions
    var ids: [String]
    var edit = UserDescriptionEdit()

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        ids = parsed.positionals("ids")
        if let rating = try parsed.option("rating", as: Int.self) {
            guard (-1...5).contains(rating) else { throw ValidationError("--rating takes -1 (rejected) to 5 stars, not \(rating)") }
            edit.rating = .set(rating)
        }
        if let title = parsed.option("title") { edit.title = .set(title) }
        if let caption = parsed.option("caption") { edit.caption = .set(caption) }
        let keywords = parsed.options("keyword")
        if !keywords.isEmpty { edit.keywords = .set(keywords) }
        for field in parsed.options("clear") {
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

    static let arguments: [ArgumentDefinition] = LibraryOptions.arguments + [
        .flag("dry-run", help: "List what would be written; write nothing."),
        .flag("json", help: "Print [{\"id\", \"path\", \"outcome\"}] (outcome: written or sidecarExists)."),
    ]

    var library: LibraryOptions
    var dryRun: Bool
    var json: Bool

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        dryRun = parsed.flag("dry-run")
        json = parsed.flag("json")
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
