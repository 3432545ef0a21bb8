import Foundation
@testable import MediaIndexCLI

/// Runs `mediaindex` in-process with captured output, as a user with no configuration
/// file (`HOME` points nowhere).
///
/// - Parameters:
///   - library: the library folder (`MEDIAINDEX_LIBRARY`); nil leaves it unset.
///   - cache: the thumbnail cache folder (`MEDIAINDEX_CACHE`); nil leaves it unset.
///   - width: makes stdout a terminal that many columns wide; nil makes it a pipe.
/// - Returns: the exit code, what went to stdout and what went to stderr.
func mediaindex(_ arguments: [String], library: String? = nil, cache: String? = nil,
                width: Int? = nil) async -> (code: Int32, out: String, err: String) {
    var environment = ["HOME": "/nonexistent"]
    environment["MEDIAINDEX_LIBRARY"] = library
    environment["MEDIAINDEX_CACHE"] = cache
    let context = CommandContext.capturing(environment: environment, terminalWidth: width)
    let code = await CommandRunner.run(root: MediaIndexCommand.self, arguments: arguments.map { RawArgument($0) },
                                       context: context)
    return (code, context.standardOutput.capturedText, context.standardError.capturedText)
}

/// Runs `mediaindex` in-process on `folder/library` with its cache in `folder/cache`.
func mediaindex(_ arguments: [String], folder: String,
                width: Int? = nil) async -> (code: Int32, out: String, err: String) {
    await mediaindex(arguments, library: folder + "/library", cache: folder + "/cache", width: width)
}
