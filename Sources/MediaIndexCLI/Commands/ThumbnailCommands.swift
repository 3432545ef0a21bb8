import Foundation
import MediaIndex
import MediaIndexInterface

/// `--cache DIR`, `--cache-limit`, shared by the thumbnail commands and `index`.
struct CacheOptions: ParsableArguments {
    static let cache = Argument.option(
        "cache", valueName: "dir", help: "The thumbnail cache folder (default: $MEDIAINDEX_CACHE, else $XDG_CACHE_HOME/mediaindex)."
    )
    static let cacheLimit = Argument.option(
        "cache-limit", valueName: "MB", as: Int.self,
        help: "Trim the cache to 80% of this many megabytes when it grows past it (default: 2048)."
    )
    static let arguments = declared(cache, cacheLimit)

    var explicitDirectory: String?
    var limitMegabytes: Int?

    init(parsed: ParsedArguments) throws {
        explicitDirectory = try parsed[Self.cache]
        limitMegabytes = try parsed[Self.cacheLimit]
        if let limitMegabytes, limitMegabytes < 1 { throw ValidationError("--cache-limit must be at least 1 (MB)") }
    }

    func cache(in context: CommandContext) -> ThumbnailCache {
        var cache = ThumbnailCache.resolve(explicit: explicitDirectory, environment: context.environment)
        if let limitMegabytes { cache.sizeLimit = Int64(limitMegabytes) << 20 }
        return cache
    }
}

/// `--size`, `--mode`, `--format` of the thumbnail commands.
enum ThumbnailArguments {
    /// `--mode`, the same in `thumbnail` and `thumbnails`.
    static let mode = Argument.option(
        "mode", valueName: "mode", default: "fit", help: "fit: the whole picture; fill: a centred square."
    )

    static func size(_ text: String) throws -> Int {
        do { return try ThumbnailParameters.size(text) } catch let error as ParameterError { throw ValidationError(error.message) }
    }

    static func mode(_ text: String?) throws -> ThumbnailMode {
        do { return try ThumbnailParameters.mode(text) } catch let error as ParameterError { throw ValidationError(error.message) }
    }

    static func format(_ text: String?) throws -> ThumbnailFormat {
        do { return try ThumbnailParameters.format(text) } catch let error as ParameterError { throw ValidationError(error.message) }
    }

    static func summaryText(_ s: ThumbnailBuildSummary) -> String {
        let rate = s.elapsedSeconds > 0 ? Double(s.made) / s.elapsedSeconds : 0
        var parts = ["made \(s.made)", "already cached \(s.cached)", "failed \(s.failed)"]
        if s.needsFFmpeg > 0 { parts.append("need ffmpeg \(s.needsFFmpeg)") }
        parts.append(String(format: "%.2f s, %.0f thumbnails/s", s.elapsedSeconds, rate))
        return "Thumbnails: " + parts.joined(separator: ", ")
    }

    static func progressText(_ s: ThumbnailBuildSummary) -> String {
        let done = s.total
        let of = s.planned.map { "/\($0)" } ?? ""
        return "Thumbnails \(done)\(of): made \(s.made), cached \(s.cached), failed \(s.failed + s.needsFFmpeg)"
    }
}

/// `mediaindex thumbnail ID`: the path of one cached thumbnail.
struct ThumbnailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "thumbnail",
        abstract: "Print an asset's thumbnail path (made if needed).",
        discussion: """
            The asset is given by identifier or by the path of one of its files. Exit codes: 0 the path \
            was printed, 1 no thumbnail can be made (the reason is printed: an unsupported format, a \
            damaged file, or a video while ffmpeg is not installed).
            """
    )

    static let asset = Argument.positional("asset", as: RawArgument.self, help: "An asset identifier, or a file path.")
    static let size = Argument.option(
        "size", valueName: "pixels", default: "256", help: "The longer side (fit) or the square's side (fill)."
    )
    static let format = Argument.option(
        "format", valueName: "format", default: "jpeg", help: "jpeg or webp (webp keeps transparency)."
    )
    static let fast = Argument.flag(
        "fast",
        help: "Print at once the file's own EXIF or HEIF thumbnail (or another cached size), even when smaller; it is written to the cache's fast/ folder, not into the keyed cache."
    )
    static let arguments = LibraryOptions.arguments + CacheOptions.arguments
        + declared(asset, size, ThumbnailArguments.mode, format, fast)

    var library: LibraryOptions
    var cacheOptions: CacheOptions
    var key: RawArgument
    var request: ThumbnailRequest
    var fast: Bool

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        cacheOptions = try CacheOptions(parsed: parsed)
        key = try parsed[Self.asset]
        request = ThumbnailRequest(maxPixelSize: try ThumbnailArguments.size(parsed[Self.size]),
                                   mode: try ThumbnailArguments.mode(parsed[ThumbnailArguments.mode]),
                                   format: try ThumbnailArguments.format(parsed[Self.format]))
        fast = try parsed[Self.fast]
    }

    func run(in context: CommandContext) async throws {
        let mediaLibrary = try library.open(.existing, cache: cacheOptions, in: context)
        let asset = try await AssetArgument.asset(named: key, in: mediaLibrary)
        if fast, let quick = try mediaLibrary.blocking.fastThumbnail(for: asset, size: request.maxPixelSize,
                                                                      mode: request.mode, format: request.format) {
            context.standardOutput.writeLine(quick.path)
            return
        }
        // Asked for explicitly: try again even if it failed before.
        let thumbnail = try await mediaLibrary.thumbnail(for: asset, size: request.maxPixelSize, mode: request.mode,
                                                         format: request.format, retryFailures: true)
        context.standardOutput.writeLine(thumbnail.path)
    }
}

/// `mediaindex thumbnails`: makes the missing thumbnails, or collects old ones.
struct ThumbnailsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "thumbnails",
        abstract: "Make missing thumbnails, or collect old ones (--gc).",
        discussion: """
            Makes the missing thumbnails of every asset, or of those --filter and --album select, \
            on all cores. Thumbnails already cached are kept; assets that failed before are skipped until they \
            change (--retry to try again); videos wait for ffmpeg. --gc instead removes the thumbnails \
            of deleted assets and old revisions and files no asset owns, then trims the cache to its limit.
            """
    )

    static let sizes = Argument.repeatableOption(
        "size", valueName: "pixels", help: "A size to make; repeat for several (default: 256)."
    )
    static let format = Argument.option("format", valueName: "format", default: "jpeg", help: "jpeg or webp.")
    static let filter = Argument.option(
        "filter", valueName: "expr", help: "Only assets of these kinds, e.g. 'images & !screenshots'."
    )
    static let retry = Argument.flag("retry", help: "Try again assets whose thumbnails failed before.")
    static let collect = Argument.flag("gc", help: "Remove thumbnails of deleted assets and old revisions, then trim the cache.")
    static let failures = Argument.flag(
        "failures",
        help: "List the assets whose thumbnails could not be made, or were made from the file's own small thumbnail, and why."
    )
    static let quiet = Argument.flag("quiet", short: "q", help: "Print nothing but errors.")
    static let json = Argument.flag("json", help: "Print the summary as JSON.")
    static let arguments = LibraryOptions.arguments + CacheOptions.arguments
        + declared(sizes, ThumbnailArguments.mode, format, filter, AssetListingOptions.album, retry, collect, failures, quiet, json)

    var library: LibraryOptions
    var cacheOptions: CacheOptions
    var options = ThumbnailBuildOptions()
    var albumKey: String?
    var collect: Bool
    var listFailures: Bool
    var quiet: Bool
    var json: Bool

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        cacheOptions = try CacheOptions(parsed: parsed)
        let sizes = try parsed[Self.sizes].map(ThumbnailArguments.size)
        options.sizes = sizes.isEmpty ? [256] : sizes
        options.mode = try ThumbnailArguments.mode(parsed[ThumbnailArguments.mode])
        options.format = try ThumbnailArguments.format(parsed[Self.format])
        let filterText = try parsed[Self.filter]
        if let text = filterText {
            do { options.assets.filter = try MediaFilter(parsing: text) } catch let error as MediaFilterParseError {
                throw ValidationError("--filter: \(error.description)")
            }
        }
        albumKey = try parsed[AssetListingOptions.album]
        options.retryFailures = try parsed[Self.retry]
        collect = try parsed[Self.collect]
        listFailures = try parsed[Self.failures]
        if collect && listFailures { throw ValidationError("--gc and --failures cannot be used together") }
        quiet = try parsed[Self.quiet]
        json = try parsed[Self.json]
        if collect && (albumKey != nil || filterText != nil || !sizes.isEmpty) {
            throw ValidationError("--gc works on the whole cache; it takes no --size, --filter or --album")
        }
    }

    func run(in context: CommandContext) async throws {
        let mediaLibrary = try library.open(.existing, cache: cacheOptions, in: context).blocking
        if listFailures {
            let failures = try mediaLibrary.thumbnailFailures()
            if json {
                context.standardOutput.writeLine(JSON.array(failures.map { record in
                    JSON.object([("id", .string(record.identifier.description)), ("revision", .int(record.revision)),
                                 ("size", .int(record.size)), ("mode", .string(record.mode.rawValue)),
                                 ("format", .string(record.format)), ("state", .string(record.state.rawValue)),
                                 ("message", record.message.map(JSON.string) ?? .null)])
                }).prettyText)
            } else {
                for record in failures {
                    context.standardOutput.writeLine(TerminalSanitizer.escape(
                        "\(record.identifier)  \(record.size) \(record.mode.rawValue)  \(record.message ?? record.state.rawValue)"))
                }
            }
            return
        }
        if collect {
            let result = try mediaLibrary.collectThumbnailGarbage(removeStrays: true)
            if json {
                context.standardOutput.writeLine(JSON.object([
                    ("recordsRemoved", .int(result.recordsRemoved)), ("filesRemoved", .int(result.filesRemoved)),
                    ("trimmedFiles", .int(result.trim.filesRemoved)), ("cacheBytes", .int(Int(result.trim.bytesAfter))),
                ]).prettyText)
            } else if !quiet {
                context.standardOutput.writeLine("""
                    Thumbnails collected: \(result.recordsRemoved) old entries, \(result.filesRemoved) files removed, \
                    \(result.trim.filesRemoved) trimmed; cache now \(HumanReadable.byteCount(result.trim.bytesAfter))
                    """)
            }
            return
        }
        var options = options
        if let albumKey { options.assets.album = try mediaLibrary.albumScope(named: albumKey) }
        let progressLine = quiet || json ? nil : ProgressLine(output: context.standardError)
        let summary = try mediaLibrary.buildThumbnails(options) { progress in
            progressLine?.update(ThumbnailArguments.progressText(progress))
        }
        progressLine?.clear()
        if json {
            context.standardOutput.writeLine(JSONShapes.thumbnailSummary(summary).prettyText)
        } else if !quiet {
            context.standardOutput.writeLine(ThumbnailArguments.summaryText(summary))
            if summary.failed > 0 || summary.needsFFmpeg > 0 {
                context.standardOutput.writeLine("""
                    \(summary.failed + summary.needsFFmpeg) assets have no thumbnail; \
                    'mediaindex thumbnails --failures' lists why.
                    """)
            }
        }
    }
}
