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

    static let limit = Argument.option(
        "limit", valueName: "n", as: Int.self, help: "Print at most this many assets (default: 100 in a table, all in JSON)."
    )
    static let count = Argument.flag("count", help: "Print counts by media type instead of assets.")
    static let json = Argument.flag("json", help: "Print one JSON document: {\"assets\": [...], \"nextCursor\": ...}.")
    static let jsonLines = Argument.flag("jsonl", help: "Print one JSON asset per line.")
    static let arguments = LibraryOptions.arguments + AssetListingOptions.filtersAndSort
        + declared(limit, AssetListingOptions.after, count, json, jsonLines, FieldsOption.fields)

    var library: LibraryOptions
    var options = FetchOptions()
    var albumKey: String?
    var recursive = false
    var limit: Int?
    var count: Bool
    var format: OutputFormat
    var fields: AssetFieldSelection?

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        let json = try parsed[Self.json], jsonLines = try parsed[Self.jsonLines]
        if json && jsonLines {
            throw ValidationError("--json and --jsonl cannot be used together")
        }
        format = json ? .json : jsonLines ? .jsonLines : .table
        count = try parsed[Self.count]
        fields = try FieldsOption.selection(parsed)
        if fields != nil && count { throw ValidationError("--fields chooses the keys of assets; --count prints counts instead") }
        limit = try parsed[Self.limit]
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
        do {
            let parameters = try AssetListingParameters(reading: CommandLineParameters(parsed: parsed))
            options = parameters.options
            albumKey = parameters.albumKey
            recursive = parameters.recursive
        } catch let error as ParameterError {
            throw ValidationError(error.message)
        }
    }

    /// `1 asset`, `2 assets`.
    static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    func run(in context: CommandContext) async throws {
        let mediaLibrary = try library.open(.readOnly, in: context)
        var options = options
        do {
            if let albumKey { options.album = try await mediaLibrary.albumScope(named: albumKey, recursive: recursive) }
            if count {
                let counts = try await mediaLibrary.countAssets(options)
                if format == .table {
                    context.standardOutput.writeLine(Self.counted(counts.total, "asset") + ": "
                        + Self.counted(counts.images, "image") + ", " + Self.counted(counts.videos, "video"))
                } else {
                    let document = JSONShapes.counts(counts)
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
                    for asset in page.assets { context.standardOutput.writeLine(JSONShapes.asset(asset, fields: fields).compactText) }
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
                    let document = JSONShapes.assetPage(all, nextCursor: nil, fields: fields)
                    context.standardOutput.writeLine(document.prettyText)
                } else {
                    options.limit = limit
                    let page = try await mediaLibrary.fetchAssets(options)
                    let document = JSONShapes.assetPage(page.assets, nextCursor: page.nextCursor, fields: fields)
                    context.standardOutput.writeLine(document.prettyText)
                }
            case .table:
                options.limit = limit ?? 100
                let page = try await mediaLibrary.fetchAssets(options)
                if page.assets.isEmpty {
                    var everything = FetchOptions()
                    everything.includeHidden = true
                    let isEmpty = options.limit == 0 ? false : try await mediaLibrary.countAssets(everything).total == 0
                    context.standardOutput.writeLine(options.limit == 0 ? "No assets shown: --limit 0."
                        : isEmpty ? "No assets. Index a folder first: mediaindex index ~/Pictures" : "No assets match.")
                    return
                }
                printTable(page, context: context)
            }
        } catch let error as AssetQueryError {
            throw ValidationError(ErrorAdvice.sentence(for: error))
        }
    }

    /// The page as a table: `--fields`' columns, else the summary's (`AssetTable`).
    private func printTable(_ page: AssetPage, context: CommandContext) {
        let table = fields.map(AssetTable.init) ?? .summary
        context.standardOutput.writeLine(table.render(page.assets, maxWidth: context.terminalWidth))
        if let next = page.nextCursor {
            context.standardOutput.writeLine("More: --after \(next)")
        }
    }
}

/// The options of `assets` (and `search`) that `AssetListingParameters` reads, declared
/// once: each is the parameter of the same name in camel case (`--min-pixels` is
/// `minPixels`), as `GET /v1/assets` takes it.
enum AssetListingOptions {
    static let filter = Argument.option(
        "filter", valueName: "expr", help: "Kinds of assets, e.g. 'images & !screenshots' (default: all)."
    )
    static let album = Argument.option(
        "album", valueName: "album", help: "Only this album: its id, a smart album name, a user album title or a folder path."
    )
    static let recursive = Argument.flag("recursive", help: "With a folder --album: also every asset in its subfolders.")
    static let from = Argument.option(
        "from", valueName: "date",
        help: "Captured on or after this date (YYYY-MM-DD[THH:MM[:SS]][Z|±HH:MM], local time unless given)."
    )
    static let to = Argument.option("to", valueName: "date", help: "Captured before this moment; a bare date includes that whole day.")
    static let onThisDay = Argument.option(
        "on-this-day", valueName: "MM-DD|today",
        help: "Taken on this month and day (or today's) in earlier years, by the camera's day."
    )
    static let near = Argument.option(
        "near", valueName: "lat,lon[,metres]", help: "Taken near a point: LAT,LON with --within KM, or within METRES of it."
    )
    static let within = Argument.option(
        "within", valueName: "km", help: "With --near LAT,LON: taken within this many kilometres of the point."
    )
    static let bbox = Argument.option("bbox", valueName: "south,west,north,east", help: "Taken inside this box (degrees).")
    static let country = Argument.option(
        "country", valueName: "code|name",
        help: "Taken in this country: ISO code (jp) or English name (Japan); case-insensitive."
    )
    static let place = Argument.option(
        "place", valueName: "name",
        help: "Taken in a place of this name at any level: city, subregion, region or country (accents and case ignored)."
    )
    static let make = Argument.option(
        "make", valueName: "make",
        help: "Camera make, as 'mediaindex cameras' lists it (nikon finds NIKON CORPORATION; case-insensitive)."
    )
    static let model = Argument.option(
        "model", valueName: "model",
        help: "Camera model, as 'mediaindex cameras' lists it (EOS 6D finds Canon EOS 6D; case-insensitive)."
    )
    static let minPixels = Argument.option(
        "min-pixels", valueName: "WxH|N", help: "At least W×H pixels, or N pixels in all (e.g. 1920x1080, 12000000)."
    )
    static let minDuration = Argument.option("min-duration", valueName: "seconds", as: Double.self, help: "At least this long.")
    static let maxDuration = Argument.option("max-duration", valueName: "seconds", as: Double.self, help: "At most this long.")
    static let types = Argument.repeatableOption(
        "type", valueName: "format", help: "Primary file format (jpeg, heic, mov, …); repeat for several."
    )
    static let keywords = Argument.repeatableOption(
        "keyword", valueName: "keyword",
        help: "Has this keyword or one below it (Places finds Places|France|Paris); repeat for all of several."
    )
    static let people = Argument.repeatableOption(
        "person", valueName: "name", help: "Shows this person (a whole name or one of its words); repeat for all of several."
    )
    static let minRating = Argument.option(
        "min-rating", valueName: "stars", as: Double.self,
        help: "Rated at least this many stars (-1 rejected … 5; your rating over the file's)."
    )
    static let rating = Argument.option(
        "rating", valueName: "stars", as: Double.self, help: "Rated exactly this many stars (-1 rejected … 5)."
    )
    static let label = Argument.option("label", valueName: "label", help: "Has this colour label (Red, Green, …; case-insensitive).")
    static let hasCaption = Argument.option("has-caption", valueName: "yes|no", help: "Has a caption (yes) or none (no).")
    static let hasTitle = Argument.option("has-title", valueName: "yes|no", help: "Has a title (yes) or none (no).")
    static let includeHidden = Argument.flag("include-hidden", help: "Include assets you hid.")
    static let allBursts = Argument.flag("all-bursts", help: "Include every frame of a burst, not only its representative.")
    static let sort = Argument.option(
        "sort", valueName: "key",
        help: "captureDate (default), modificationDate, addedDate, fileName, duration, fileSize, albumOrder."
    )
    static let reverse = Argument.flag("reverse", help: "Reverse the sort's direction.")
    static let after = Argument.option("after", valueName: "cursor", help: "Start after this cursor (a previous page's nextCursor).")

    /// The filters and the sort, in the order help lists them (`--after` comes after `--limit`).
    static let filtersAndSort = declared(
        filter, album, recursive, from, to, onThisDay, near, within, bbox, country, place, make, model, minPixels, minDuration, maxDuration,
        types, keywords, people, minRating, rating, label, hasCaption, hasTitle, includeHidden, allBursts, sort, reverse
    )

    /// The keys by parameter name, one table per value type.
    static let texts = byParameterName(
        filter, album, from, to, onThisDay, near, within, bbox, country, place, make, model, minPixels, label, hasCaption, hasTitle, sort,
        after
    )
    static let lists = byParameterName(types, keywords, people)
    static let flags = byParameterName(recursive, includeHidden, allBursts, reverse)
    static let numbers = byParameterName(minDuration, maxDuration, minRating, rating)

    /// `min-pixels` → `minPixels`.
    static func parameterName(_ optionName: String) -> String {
        let words = optionName.split(separator: "-")
        return words.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.capitalized }.joined()
    }

    private static func byParameterName<Value>(_ keys: ArgumentKey<Value>...) -> [String: ArgumentKey<Value>] {
        Dictionary(uniqueKeysWithValues: keys.map { (parameterName($0.definition.name), $0) })
    }
}

/// A command line's options as a `ParameterSource`: `minPixels` is `--min-pixels`.
struct CommandLineParameters: ParameterSource {
    var parsed: ParsedArguments

    func value(_ name: String) throws -> String? {
        // The command line takes a search as `search`'s argument, not as an option.
        if name == "q" { return nil }
        return try parsed[Self.key(name, in: AssetListingOptions.texts)]
    }
    func values(_ name: String) -> [String] {
        // Texts always convert.
        (try? parsed[Self.key(name, in: AssetListingOptions.lists)]) ?? []
    }
    func flag(_ name: String) throws -> Bool { try parsed[Self.key(name, in: AssetListingOptions.flags)] }
    func number(_ name: String) throws -> Double? { try parsed[Self.key(name, in: AssetListingOptions.numbers)] }
    func spelling(of name: String) -> String { "--" + Self.optionName(name) }

    /// The option `AssetListingParameters` asks for by its parameter name; one it does not
    /// declare is a programming error.
    private static func key<Value>(_ name: String, in table: [String: ArgumentKey<Value>]) -> ArgumentKey<Value> {
        guard let key = table[name] else { preconditionFailure("no option of 'assets' is the parameter '\(name)'") }
        return key
    }

    /// `minPixels` → `min-pixels`.
    static func optionName(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase { result += "-" + character.lowercased() } else { result.append(character) }
        }
        return result
    }
}
