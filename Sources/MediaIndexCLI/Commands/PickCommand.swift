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
        let mediaLibrary = try library.open(.readOnly, cache: cacheOptions, in: context)
        let session = PickSession()
        let policy = AccessPolicy(address: ListenAddress(host: "127.0.0.1", port: 0, isIPv6: false), token: ServeToken.random())
        var configuration = MediaIndexAPI.Configuration(library: mediaLibrary, policy: policy, isReadOnly: true,
                                                        watcherState: { [] })
        configuration.pickSession = session
        let server = try MediaIndexServer(configuration: configuration)
        defer { server.stop() }
        let address = pageAddress(server: server.address, secret: session.secret)
        if noOpen || !Self.openInBrowser(address) {
            context.standardError.writeLine("pick: open \(address) in a browser; waiting for Done or Cancel")
        } else {
            context.standardError.writeLine("pick: opened the picker in the browser; waiting for Done or Cancel")
        }
        context.standardError.flush()
        let outcome = await session.outcome()
        // The page's POST is answered after the outcome is taken; `stop` closes open
        // connections, so give that answer a moment to go out.
        try? await Task.sleep(for: .milliseconds(300))
        guard case .selection(let body) = outcome else {
            context.standardError.writeLine("pick: cancelled in the picker; nothing was picked")
            throw ExitCode(1)
        }
        let items = try PickedItem.items(from: body)
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

    /// The picker's one-shot address: `/?pick=SECRET` with the limit, filter and include.
    func pageAddress(server: ListenAddress, secret: String) -> String {
        var components = URLComponents()
        components.queryItems = [URLQueryItem(name: "pick", value: secret)]
            + (limit > 0 ? [URLQueryItem(name: "limit", value: String(limit))] : [])
            + (filter.map { [URLQueryItem(name: "filter", value: $0)] } ?? [])
            + (include.isEmpty ? [] : [URLQueryItem(name: "include", value: include.joined(separator: ","))])
        return "http://\(server)/?" + (components.percentEncodedQuery ?? "")
    }

    /// Opens `address` with `xdg-open`; false when there is none or it failed.
    static func openInBrowser(_ address: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", address]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

/// One item of the page's Done message, read field by field: only the hand-off's fields
/// are printed, whatever else the page sent.
struct PickedItem: Decodable {
    struct Message: Decodable { var assets: [PickedItem] }
    struct Resource: Decodable { var role: String?; var path: String? }
    struct Location: Decodable { var latitude: Double?; var longitude: Double?; var altitude: Double? }

    var id: String
    var uniformType: String?
    var pixelWidth: Int?
    var pixelHeight: Int?
    var duration: Double?
    var isOriginalFile: Bool?
    var urls: [String: String]?
    var resources: [Resource]?
    var location: Location?

    /// The items of a Done message, in selection order.
    static func items(from body: [UInt8]) throws -> [PickedItem] {
        do { return try JSONDecoder().decode(Message.self, from: Data(body)).assets } catch {
            throw ValidationError("the picker sent a selection this command cannot read: \(error)")
        }
    }

    /// The item as printed: PhotosPicker's fields and the URLs; `resources` (paths) and
    /// `location` only when `include` names them.
    func json(including include: [String]) -> JSON {
        var members: [(String, JSON)] = [
            ("id", .string(id)), ("uniformType", JSON(uniformType)), ("pixelWidth", JSON(pixelWidth)),
            ("pixelHeight", JSON(pixelHeight)), ("duration", JSON(duration)), ("isOriginalFile", JSON(isOriginalFile)),
            ("urls", .object(["original", "compatible", "thumbnail"].compactMap { key in urls?[key].map { (key, .string($0)) } })),
        ]
        if include.contains("path") {
            members.append(("resources", .array((resources ?? []).map { .object([("role", JSON($0.role)), ("path", JSON($0.path))]) })))
        }
        if include.contains("location") {
            members.append(("location", location.map { .object([("latitude", JSON($0.latitude)), ("longitude", JSON($0.longitude)),
                                                                  ("altitude", JSON($0.altitude))]) } ?? .null))
        }
        return .object(members)
    }
}
