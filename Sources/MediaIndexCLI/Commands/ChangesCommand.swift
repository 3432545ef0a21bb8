import MediaIndex
import MediaIndexInterface

/// `mediaindex changes --since TOKEN`: the change feed.
struct ChangesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "changes",
        abstract: "List asset changes since a change token.",
        discussion: """
            Every insert, update, deletion, move and pairing change gets a token larger than all before it. \
            Ask with the token the previous call printed. A token older than the retained history (90 days, \
            at most 1,000,000 changes), or from a library since rebuilt, exits with code 3: do a full sync \
            ('mediaindex assets --jsonl'), then continue from the current token.
            """
    )

    static let since = Argument.option("since", valueName: "token", default: Int64(0), help: "Report changes after this token.")
    static let json = Argument.flag("json", help: "Print {\"changes\": [...], \"currentToken\": N}.")
    static let arguments = LibraryOptions.arguments + declared(since, json)

    static let tokenExpiredExitCode: Int32 = 3

    var library: LibraryOptions
    var since: Int64
    var json: Bool

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        since = try parsed[Self.since]
        json = try parsed[Self.json]
    }

    func validate() throws {
        if since < 0 { throw ValidationError("--since must not be negative") }
    }

    func run(in context: CommandContext) async throws {
        let mediaLibrary = try library.open(.readOnly, in: context)
        let result: AssetChanges
        do {
            result = try await mediaLibrary.changes(since: ChangeToken(rawValue: since))
        } catch let error as LibraryError {
            switch error {
            case .changeTokenExpired, .changeTokenFromTheFuture:
                context.standardError.writeLine("Error: \(ErrorAdvice.sentence(for: error))")
                throw ExitCode(Self.tokenExpiredExitCode)
            default: break
            }
            throw error
        }
        if json {
            context.standardOutput.writeLine(JSONShapes.changes(result).prettyText)
            return
        }
        if result.changes.isEmpty {
            context.standardOutput.writeLine("No changes since \(since).")
        } else {
            let table = TableRenderer(columns: [TableColumn("TOKEN", alignment: .right), TableColumn("ID", isTruncatable: false),
                                                TableColumn("KIND"), TableColumn("FIELDS")])
            context.standardOutput.writeLine(table.render(result.changes.map {
                [$0.token.description, $0.id.description, $0.kind.rawValue, $0.fields.map(\.rawValue).joined(separator: ", ")]
            }, maxWidth: context.terminalWidth))
        }
        context.standardOutput.writeLine("Current token: \(result.currentToken)")
    }
}
