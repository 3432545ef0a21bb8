import Foundation
import MediaIndex
import MediaIndexInterface

/// `mediaindex search QUERY`: the assets a search finds, with the output options of
/// `assets`; `--suggest` completes the query's last word instead.
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "search",
        abstract: "Search assets by words and field:value terms.",
        discussion: """
            Words match file names, cameras, lenses, keywords, people, titles and captions (case, accents and word forms aside; the last word \
            as a prefix); "quoted phrases" keep their order; field:value terms test one field (camera:, lens:, \
            type:, is:, date:, album:, ext:, format:, width:, height:, duration:, rating:, keyword:, person:, label:, \
            title:, caption:, creator:, copyright:); -term negates; OR \
            joins alternatives. Example: mediaindex search 'beach camera:canon -is:screenshot date:2023-07'. \
            The output options are those of 'assets'; see docs/search.md.
            """
    )

    static let query = Argument.positional("query", help: "The search, quoted as one argument.")
    static let suggest = Argument.flag("suggest", help: "Print completions of the query's last word, with counts, instead of assets.")
    static let arguments = declared(query, suggest) + AssetsCommand.arguments

    var listing: AssetsCommand
    var query: String
    var suggest: Bool

    init(parsed: ParsedArguments) throws {
        listing = try AssetsCommand(parsed: parsed)
        query = try parsed[Self.query]
        suggest = try parsed[Self.suggest]
        if suggest && listing.fields != nil {
            throw ValidationError("--fields chooses the keys of assets; --suggest prints completions instead")
        }
        if !suggest {
            do { listing.options.search = try SearchQuery(parsing: query) } catch let error as SearchQueryError {
                throw ValidationError(error.description)
            }
        }
    }

    func run(in context: CommandContext) async throws {
        guard suggest else {
            do { return try await listing.run(in: context) } catch let error as SearchQueryError {
                throw ValidationError(error.description)
            }
        }
        let library = try listing.library.open(.readOnly, in: context)
        let suggestions = try await library.searchSuggestions(for: query, limit: listing.limit ?? 10)
        switch listing.format {
        case .json: context.standardOutput.writeLine(SearchSuggestion.json(suggestions).prettyText)
        case .jsonLines: for suggestion in suggestions { context.standardOutput.writeLine(suggestion.json.compactText) }
        case .table:
            if suggestions.isEmpty { context.standardOutput.writeLine("No suggestions."); return }
            let table = TableRenderer(columns: [
                TableColumn("TERM"), TableColumn("KIND", isTruncatable: false),
                TableColumn("ASSETS", alignment: .right, isTruncatable: false),
            ])
            context.standardOutput.writeLine(table.render(
                suggestions.map { [$0.term, $0.kind.rawValue, $0.count.map(String.init) ?? ""] },
                maxWidth: context.terminalWidth))
        }
    }
}
