import Foundation
import MediaIndex
import MediaIndexInterface

/// `--batch-size`, `--thumbnails` and `--size`, shared by `index` and `watch`; each
/// command declares its own `--thumbnails`, with its words for when they are made.
struct IndexRunOptions: Sendable {
    static let batchSize = Argument.option("batch-size", valueName: "n", default: 1024, help: "Files committed per transaction.")
    static let sizes = Argument.repeatableOption(
        "size", valueName: "pixels", help: "With --thumbnails: a size to make; repeat for several (default: 256)."
    )

    /// `--batch-size`, the command's `--thumbnails`, then `--size`.
    static func arguments(thumbnails: ArgumentKey<Bool>) -> [ArgumentDefinition] {
        declared(batchSize, thumbnails, sizes)
    }

    /// Files committed per transaction.
    var batchSize: Int
    /// The thumbnail sizes to make after a run (256 unless `--size` says), or nil
    /// without `--thumbnails`.
    var thumbnailSizes: [Int]?

    /// - Throws: `ValidationError` for a bad size, or `--size` without `--thumbnails`.
    init(parsed: ParsedArguments, thumbnails: ArgumentKey<Bool>) throws {
        batchSize = try parsed[Self.batchSize]
        let sizes = try parsed[Self.sizes].map(ThumbnailArguments.size)
        let makesThumbnails = try parsed[thumbnails]
        if !makesThumbnails && !sizes.isEmpty { throw ValidationError("--size needs --thumbnails") }
        thumbnailSizes = makesThumbnails ? (sizes.isEmpty ? [256] : sizes) : nil
    }
}

/// `mediaindex index [ROOT...]`: registers roots and brings the library up to date.
struct IndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "index",
        abstract: "Index the given folders, or every registered root.",
        discussion: """
            Given folders are registered as roots and indexed; with none, every registered root \
            is re-indexed (the cron job). Only new and changed files are opened. A second run on \
            the same library exits at once with code 75 unless --wait is given.
            Exit codes: 0 done (files that could not be read are recorded; see 'mediaindex errors'), \
            1 the run failed, 64 bad command line, 75 another index run holds the library.
            """
    )

    static let roots = Argument.positionals("roots", as: RawArgument.self, help: "Folders to register and index.")
    static let quiet = Argument.flag("quiet", short: "q", help: "Print nothing but errors (for cron).")
    static let json = Argument.flag("json", help: "Print the run's summary as JSON.")
    static let wait = Argument.flag("wait", help: "Wait for another index run to finish instead of exiting with code 75.")
    static let followSymlinks = Argument.flag(
        "follow-symlinks", help: "Walk into symbolic links to folders under these roots (or every root), from now on."
    )
    static let noFollowSymlinks = Argument.flag(
        "no-follow-symlinks", help: "Stop walking into symbolic links to folders under these roots (the default)."
    )
    static let thumbnails = Argument.flag("thumbnails", help: "Then make thumbnails of the new and changed assets.")
    static let arguments = LibraryOptions.arguments + CacheOptions.arguments
        + declared(roots, quiet, json, wait, followSymlinks, noFollowSymlinks)
        + IndexRunOptions.arguments(thumbnails: thumbnails)

    static let lockHeldExitCode: Int32 = 75

    var library: LibraryOptions
    var roots: [RawArgument]
    var quiet: Bool
    var json: Bool
    var wait: Bool
    var batchSize: Int
    var followSymlinks: Bool?
    var cacheOptions: CacheOptions
    var thumbnailSizes: [Int]?

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        roots = try parsed[Self.roots]
        quiet = try parsed[Self.quiet]
        json = try parsed[Self.json]
        wait = try parsed[Self.wait]
        let follow = try parsed[Self.followSymlinks], noFollow = try parsed[Self.noFollowSymlinks]
        if follow && noFollow {
            throw ValidationError("--follow-symlinks and --no-follow-symlinks cannot be given together")
        }
        followSymlinks = follow ? true : noFollow ? false : nil
        cacheOptions = try CacheOptions(parsed: parsed)
        let run = try IndexRunOptions(parsed: parsed, thumbnails: Self.thumbnails)
        batchSize = run.batchSize
        thumbnailSizes = run.thumbnailSizes
    }

    func validate() throws {
        guard batchSize >= 1 && batchSize <= 100_000 else {
            throw ValidationError("--batch-size must be between 1 and 100000")
        }
    }

    func run(in context: CommandContext) async throws {
        let mediaLibrary = try library.open(.create, cache: cacheOptions, in: context).blocking
        var options = MediaLibrary.IndexOptions()
        options.waitForLock = wait
        options.batchSize = batchSize
        options.followSymlinks = followSymlinks
        let tokenBefore = try mediaLibrary.currentChangeToken()
        let widened = try Self.enclosingRoots(of: roots, in: mediaLibrary)
        let progressLine = quiet ? nil : ProgressLine(output: context.standardError)
        let summary: IndexSummary
        do {
            summary = try mediaLibrary.index(roots: roots.map { PathBytes($0.bytes) }, options: options) { progress in
                progressLine?.update(Self.progressText(progress))
            }
        } catch let error as LibraryError {
            progressLine?.clear()
            switch error {
            case .noRoots: throw ValidationError(ErrorAdvice.sentence(for: error))
            case .indexRunInProgress:
                context.standardError.writeLine("Error: \(ErrorAdvice.sentence(for: error))")
                throw ExitCode(Self.lockHeldExitCode)
            default: throw error
            }
        }
        progressLine?.clear()
        // The library decides what to collect and rebuild; sizes only with --thumbnails.
        let thumbnails = try mediaLibrary.updateThumbnails(since: tokenBefore, sizes: thumbnailSizes ?? []) { progress in
            progressLine?.update(ThumbnailArguments.progressText(progress))
        }
        progressLine?.clear()
        if json {
            context.standardOutput.writeLine(JSONShapes.summary(summary).prettyText)
        } else if !quiet {
            context.standardOutput.writeLine(Self.summaryText(summary))
            if summary.failed > 0 {
                context.standardOutput.writeLine("\(summary.failed) files could not be read; 'mediaindex errors' lists them.")
            }
            if thumbnailSizes != nil { context.standardOutput.writeLine(ThumbnailArguments.summaryText(thumbnails)) }
        }
        if !quiet {
            for (folder, root) in widened {
                context.standardError.writeLine(TerminalSanitizer.escape(
                    "Note: \(folder.displayString) is inside the registered root \(root.displayString), which was indexed whole."))
            }
        }
    }

    /// Each given folder that lies strictly inside an already registered root, with
    /// that root: a run indexes whole roots, so such a run covers more than was asked.
    static func enclosingRoots(of folders: [RawArgument], in library: MediaLibrary.Blocking) throws -> [(PathBytes, PathBytes)] {
        guard !folders.isEmpty else { return [] }
        let registered = try library.roots().map(\.path)
        return folders.compactMap { folder in
            let resolved: PathBytes? = folder.bytes.withUnsafeBufferPointer { buffer in
                var terminated = Array(buffer) + [0]
                return terminated.withUnsafeMutableBytes { raw -> PathBytes? in
                    guard let real = realpath(raw.baseAddress?.assumingMemoryBound(to: CChar.self), nil) else { return nil }
                    defer { free(real) }
                    return PathBytes(Array(UnsafeRawBufferPointer(start: real, count: strlen(real))))
                }
            }
            guard let resolved, let root = registered.first(where: { resolved != $0 && resolved.isInside($0) }) else { return nil }
            return (resolved, root)
        }
    }

    static func progressText(_ p: IndexProgress) -> String {
        switch p.phase {
        case .walking:
            return "Scanning… \(p.scanned) files found"
        case .reading:
            let rate = p.elapsedSeconds > 0 ? Double(p.read) / p.elapsedSeconds : 0
            let remaining = rate > 0 ? Double(p.toRead - p.read) / rate : 0
            return "Reading \(p.read)/\(p.toRead) files, \(Int(rate)) files/s, \(p.failed) failed, ETA \(HumanReadable.duration(seconds: remaining))"
        case .finishing:
            return "Finishing…"
        }
    }

    static func summaryText(_ s: IndexSummary) -> String {
        var parts = ["scanned \(s.scanned)", "added \(s.added)", "updated \(s.updated)"]
        if s.moved > 0 { parts.append("moved \(s.moved)") }
        if s.paired > 0 || s.unpaired > 0 { parts.append("paired \(s.paired)") }
        if s.unpaired > 0 { parts.append("unpaired \(s.unpaired)") }
        if s.otherNames > 0 { parts.append("other names \(s.otherNames)") }
        parts += ["removed \(s.removed)", "unchanged \(s.unchanged)", "failed \(s.failed)",
                  s.specialFiles.isEmpty ? "skipped \(s.skipped) (not media)"
                      : "skipped \(s.skipped) (\(s.skipped - s.specialFiles.count) not media, \(s.specialFiles.count) special files)",
                  "opened \(s.opened)"]
        if s.unreadableFolders > 0 { parts.append("unreadable folders \(s.unreadableFolders)") }
        parts.append(String(format: "%.2f s", s.elapsedSeconds))
        return "Indexed: " + parts.joined(separator: ", ") + (s.placesOff.map { "\n" + $0 } ?? "")
    }
}
