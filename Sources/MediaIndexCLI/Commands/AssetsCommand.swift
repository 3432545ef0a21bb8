import Foundation
import MediaIndex
import MediaIndexInterface

/// `mediaindex assets`: assets matching a filter, in pages.
struct AssetsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "assets",
        abstract: "List assets, newest first.",
        discussion: """
            On a terminal, a table of the first 100 (--limit to change) and the cursor of the next page; \
            --json prints one document {"assets": [...], "nextCursor": ...}, --jsonl one asset per line \
            (all assets unless --limit). Filters combine with AND. Filter grammar: see the README, e.g. \
            --filter 'images & !screenshots' or --filter 'any(livePhotos, videos)'.
            """
    )

    static let arguments: [ArgumentDefinition] = LibraryOptions.arguments + [
        .option("filter", valueName: "expr", help: "Kinds of assets, e.g. 'images & !screenshots' (default: all)."),
        .option("album", valueName: "album", help: "Only this album: its id, a smart album name, a user album title or a folder path."),
        .option("from", valueName: "date", help: "Captured on or after this date (YYYY-MM-DD[THH:MM[:SS]][Z|±HH:MM], local time unless given)."),
        .option("to", valueName: "date", help: "Captured before this moment; a bare date includes that whole day."),
        .option("near", valueName: "lat,lon,metres", help: "Taken within this many metres of a point."),
        .option("bbox", valueName: "south,west,north,east", help: "Taken inside this box (degrees)."),
        .option("make", valueName: "make", help: "Camera make (case-insensitive, exact)."),
        .option("model", valueName: "model", help: "Camera model (case-insensitive, exact)."),
        .option("min-pixels", valueName: "WxH|N", help: "At least W×H pixels, or N pixels in all (e.g. 1920x1080, 12000000)."),
        .option("min-duration", valueName: "seconds", help: "At least this long."),
        .option("max-duration", valueName: "seconds", help: "At most this long."),
        .repeatableOption("type", valueName: "format", help: "Primary file format (jpeg, heic, mov, …); repeat for several."),
        .flag("include-hidden", help: "Include assets you hid."),
        .flag("all-bursts", help: "Include every frame of a burst, not only its representative."),
        .option("sort", valueName: "key", help: "captureDate (default), modificationDate, addedDate, fileName, duration, fileSize, albumOrder."),
        .flag("reverse", help: "Reverse the sort's direction."),
        .option("limit", valueName: "n", help: "Print at most this many assets (default: 100 in a table, all in JSON)."),
        .option("after", valueName: "cursor", help: "Start after this cursor (a previous page's nextCursor)."),
        .flag("count", help: "Print counts by media type instead of assets."),
        .flag("json", help: "Print one JSON document: {\"assets\": [...], \"nextCursor\": ...}."),
        .flag("jsonl", help: "Print one JSON asset per line."),
    ]

    var library: LibraryOptions
    var options = FetchOptions()
    var albumKey: String?
    var limit: Int?
    var count: Bool
    var format: OutputFormat

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        if parsed.flag("json") && parsed.flag("jsonl") {
            throw ValidationError("--json and --jsonl cannot be used together")
        }
        format = parsed.flag("json") ? .json : parsed.flag("jsonl") ? .jsonLines : .table
        count = parsed.flag("count")
        limit = try parsed.option("limit", as: Int.self)
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
        if let text = parsed.option("filter") {
            do { options.filter = try MediaFilter(parsing: text) } catch let error as MediaFilterParseError {
                throw ValidationError("--filter: \(error.description)")
            }
        }
        albumKey = parsed.option("album")
        if let text = parsed.option("from") { options.capturedFrom = try Self.date(text, option: "--from", endOfDay: false) }
        if let text = parsed.option("to") { options.capturedBefore = try Self.date(text, option: "--to", endOfDay: true) }
        if let text = parsed.option("near") {
            let numbers = try Self.numbers(text, count: 3, option: "--near", shape: "LAT,LON,METRES")
            options.place = .radius(latitude: numbers[0], longitude: numbers[1], radiusMeters: numbers[2])
        }
        if let text = parsed.option("bbox") {
            if options.place != nil { throw ValidationError("--near and --bbox cannot be used together") }
            let n = try Self.numbers(text, count: 4, option: "--bbox", shape: "SOUTH,WEST,NORTH,EAST")
            options.place = .boundingBox(minLatitude: n[0], minLongitude: n[1], maxLatitude: n[2], maxLongitude: n[3])
        }
        options.make = parsed.option("make")
        options.model = parsed.option("model")
        if let text = parsed.option("min-pixels") {
            let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            if parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= 0, h >= 0 {
                options.minimumPixelWidth = w
                options.minimumPixelHeight = h
            } else if let n = Int(text), n >= 0 {
                options.minimumPixelCount = n
            } else {
                throw ValidationError("--min-pixels takes WxH (such as 1920x1080) or a pixel count, not '\(text)'")
            }
        }
        options.minimumDuration = try parsed.option("min-duration", as: Double.self)
        options.maximumDuration = try parsed.option("max-duration", as: Double.self)
        options.formats = parsed.options("type")
        options.includeHidden = parsed.flag("include-hidden")
        options.includeAllBurstAssets = parsed.flag("all-bursts")
        if let text = parsed.option("sort") {
            guard let key = AssetSortKey.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
                throw ValidationError("--sort takes one of " + AssetSortKey.allCases.map(\.rawValue).joined(separator: ", ") + ", not '\(text)'")
            }
            options.sort = AssetSort(key)
        }
        if parsed.flag("reverse") {
            options.sort = options.sort ?? AssetSort.newestFirst
            options.sort?.ascending.toggle()
        }
        options.after = parsed.option("after")
    }

    /// A date option: local time unless it carries `Z` or an offset.
    static func date(_ text: String, option: String, endOfDay: Bool) throws -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime]
        if let date = iso.date(from: trimmed) { return date }
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: trimmed) { return date }
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.timeZone = TimeZone.current
        for pattern in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm"] {
            local.dateFormat = pattern
            if let date = local.date(from: trimmed) { return date }
        }
        local.dateFormat = "yyyy-MM-dd"
        if let day = local.date(from: trimmed) {
            return endOfDay ? Calendar.current.date(byAdding: .day, value: 1, to: day) ?? day : day
        }
        throw ValidationError("\(option) takes a date such as 2024-05-31 or 2024-05-31T18:30 (local) or 2024-05-31T16:30:00Z, not '\(text)'")
    }

    static func numbers(_ text: String, count: Int, option: String, shape: String) throws -> [Double] {
        let values = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard values.count == count, values.allSatisfy({ $0?.isFinite == true }) else {
            throw ValidationError("\(option) takes \(shape) as \(count) numbers separated by commas, not '\(text)'")
        }
        return values.compactMap { $0 }
    }

    func run(in context: CommandContext) async throws {
        let mediaLibrary = try library.openForReading(in: context)
        var options = options
        do {
            if let albumKey { options.album = try await mediaLibrary.albumScope(named: albumKey) }
            if count {
                let counts = try await mediaLibrary.countAssets(options)
                if format == .table {
                    context.standardOutput.writeLine("\(counts.total) assets: \(counts.images) images, \(counts.videos) videos")
                } else {
                    let document = JSON.object([("images", .int(counts.images)), ("videos", .int(counts.videos)),
                                                ("total", .int(counts.total))])
                    context.standardOutput.writeLine(format == .json ? document.prettyText : document.compactText)
                }
                return
            }
            switch format {
            case .jsonLines:
                // Pages of 1000 so a whole library streams without being held in memory.
                var printed = 0
                while true {
                    var pageOptions = options
                    pageOptions.limit = limit.map { min(1000, $0 - printed) } ?? 1000
                    let page = try await mediaLibrary.fetchAssets(pageOptions)
                    for asset in page.assets { context.standardOutput.writeLine(JSONShapes.asset(asset).compactText) }
                    printed += page.assets.count
                    guard let next = page.nextCursor, limit.map({ printed < $0 }) ?? true else { break }
                    options.after = next
                }
            case .json:
                if limit == nil {
                    var all: [Asset] = []
                    while true {
                        var pageOptions = options
                        pageOptions.limit = 1000
                        let page = try await mediaLibrary.fetchAssets(pageOptions)
                        all += page.assets
                        guard let next = page.nextCursor else { break }
                        options.after = next
                    }
                    let document = JSON.object([("assets", .array(all.map(JSONShapes.asset))), ("nextCursor", .null)])
                    context.standardOutput.writeLine(document.prettyText)
                } else {
                    options.limit = limit
                    let page = try await mediaLibrary.fetchAssets(options)
                    let document = JSON.object([("assets", .array(page.assets.map(JSONShapes.asset))),
                                                ("nextCursor", page.nextCursor.map(JSON.string) ?? .null)])
                    context.standardOutput.writeLine(document.prettyText)
                }
            case .table:
                options.limit = limit ?? 100
                let page = try await mediaLibrary.fetchAssets(options)
                printTable(page, context: context)
            }
        } catch let error as AssetQueryError {
            throw ValidationError(error.description)
        }
    }

    private func printTable(_ page: AssetPage, context: CommandContext) {
        let dates = LocalDateFormatter()
        let table = TableRenderer(columns: [
            TableColumn("ID", isTruncatable: false), TableColumn("TYPE", isTruncatable: false),
            TableColumn("DATE", isTruncatable: false), TableColumn("PIXELS", alignment: .right, isTruncatable: false),
            TableColumn("SIZE", alignment: .right, isTruncatable: false),
            TableColumn("DURATION", alignment: .right, isTruncatable: false), TableColumn("CAMERA"),
            TableColumn("FILE"),
        ])
        let rows = page.assets.map { a -> [String] in
            var type = a.mediaType.rawValue
            if a.mediaSubtypes.contains("livePhoto") { type = "live" }
            if a.favorite { type += " ♥" }
            if a.hidden { type += " (hidden)" }
            return [a.id, type, a.creationDate.map(dates.string(fromISO8601:)) ?? "-",
                    a.pixelWidth.flatMap { w in a.pixelHeight.map { "\(w)×\($0)" } } ?? "-",
                    a.primaryResource.map { HumanReadable.byteCount($0.bytes) } ?? "",
                    a.durationSeconds.map { HumanReadable.duration(seconds: $0) } ?? "",
                    [a.make, a.model].compactMap { $0 }.joined(separator: " "),
                    a.primaryResource?.path.displayString ?? ""]
        }
        if rows.isEmpty {
            context.standardOutput.writeLine(options.after == nil && options.filter == nil && albumKey == nil
                ? "No assets. Index a folder first: mediaindex index ~/Pictures" : "No assets match.")
            return
        }
        context.standardOutput.writeLine(table.render(rows, maxWidth: context.terminalWidth))
        if let next = page.nextCursor {
            context.standardOutput.writeLine("More: --after \(next)")
        }
    }
}
