import Foundation
import MediaIndex
import MediaIndexInterface
import MediaIndexServer

/// `mediaindex pick`: the web picker in the user's browser as a one-shot hand-off to a
/// native app; prints the selection once Done is pressed.
struct PickCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "pick",
        abstract: "Open the web picker in the browser and print what the user picks.",
        discussion: """
            Serves the picker on 127.0.0.1 at a port of its own, at an address with a one-shot \
            secret (the page posts its Done to POST /v1/pick/SECRET, which takes one message), \
            opens it with xdg-open and waits. Each item has id, uniformType, pixelWidth, pixelHeight, \
            duration, isOriginalFile and urls (original, compatible, thumbnail), which stay valid while \
            a server runs at that address: never paths or GPS positions unless --include asks. \
            Exit codes: 0 Done, 1 cancelled or an error, 64 bad command line.
            """
    )

    static let limit = Argument.option(
        "limit", valueName: "n", default: 0, helpDescribesDefault: true,
        help: "How many items may be picked (default: 0, any number; 1 is single selection)."
    )
    static let filter = Argument.option(
        "filter", valueName: "expr", help: "Offer only these kinds of assets, e.g. 'images & !screenshots'."
    )
    static let include = Argument.option(
        "include", valueName: "fields", help: "Hand over more than PhotosPicker does: path, location, or path,location."
    )
    static let noOpen = Argument.flag("no-open", help: "Print the picker's address on standard error instead of opening a browser.")
    static let json = Argument.flag("json", help: "Print {\"assets\": [...]} in selection order.")
    static let arguments = LibraryOptions.arguments + CacheOptions.arguments + declared(limit, filter, include, noOpen, json)

    var library: LibraryOptions
    var cacheOptions: CacheOptions
    var limit: Int
    var filter: String?
    var include: [String]
    var noOpen: Bool
    var json: Bool

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        cacheOptions = try CacheOptions(parsed: parsed)
        limit = try parsed[Self.limit]
        if limit < 0 { throw ValidationError("--limit must not be negative") }
        filter = try parsed[Self.filter]
        if let filter {
            do { _ = try MediaFilter(parsing: filter) } catch let error as MediaFilterParseError {
                throw ValidationError("--filter: \(error.description)")
            }
        }
        include = (try parsed[Self.include] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if let wrong = include.first(where: { !["path", "location"].contains($0) }) {
            throw ValidationError("--include takes path, location or path,location, not '\(wrong)'")
        }
        noOpen = try parsed[Self.noOpen]
        json = try parsed[Self.json]
    }

    func run(in context: CommandContext) async throws {
        let location = library.location(in: context)
        guard FileManager.default.fileExists(atPath: location.databasePath) else {
            throw LibraryError.noLibrary(path: location.directory)
        }
        var configuration = MediaPicker.Configuration(library: try library.open(.readOnly, cache: cacheOptions, in: context))
        configuration.selectionLimit = limit
        configuration.filter = try filter.map { try MediaFilter(parsing: $0) }
        configuration.selection = .ordered
        configuration.include = Set(include.compactMap(MediaPicker.Configuration.Inclusion.init(rawValue:)))
        let noOpen = noOpen
        let presentation = MediaPicker.Presentation.custom { address in
            if noOpen || !MediaPicker.openInBrowser(address.absoluteString) {
                context.standardError.writeLine("pick: open \(address) in a browser; waiting for Done or Cancel")
            } else {
                context.standardError.writeLine("pick: opened the picker in the browser; waiting for Done or Cancel")
            }
            context.standardError.flush()
        }
        let picked: [PickedItem]?
        do { picked = try await MediaPicker.run(configuration: configuration, presentation: presentation) } catch let error as MediaPickerError {
            throw ValidationError(error.description)
        }
        guard let items = picked else {
            context.standardError.writeLine("pick: cancelled in the picker; nothing was picked")
            throw ExitCode(1)
        }
        if json {
            let assets = JSON.array(items.map { $0.json(including: include) })
            context.standardOutput.writeLine(JSON.object([("assets", assets)]).prettyText)
        } else {
            for item in items {
                let size = item.pixelWidth.map { w in item.pixelHeight.map { "\(w)×\($0)" } ?? "" } ?? ""
                context.standardOutput.writeLine([item.id, item.uniformType ?? "", size, item.urls?["original"] ?? ""]
                    .filter { !$0.isEmpty }.joined(separator: "  "))
            }
        }
    }
}
