import MediaIndex
import MediaIndexInterface

/// `mediaindex adjust-time ID… (--offset ±HH:MM | --zone ZONE | --reset)`: Photos' "adjust date and time".
struct AdjustTimeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "adjust-time",
        abstract: "Set the UTC offset or time zone of assets' capture times, or reset it.",
        discussion: """
            Kept in user state (by asset identifier, through re-indexing and rebuilds) and wins over every other \
            rule (captureOffsetSource user). A camera's wall clock stays as recorded and its instant moves; a movie \
            recorded in UTC keeps its instant and its wall clock moves. --reset gives the assets back to the file's \
            offset, GPS time, the position's zone or their neighbours.
            """
    )

    static let offset = Argument.option("offset", valueName: "±hh:mm", help: "The UTC offset, such as +09:00 or -03:30.")
    static let zone = Argument.option(
        "zone", valueName: "zone", help: "An IANA time zone, such as Asia/Tokyo; its rules give the offset at each instant."
    )
    static let reset = Argument.flag("reset", help: "Clear the setting.")
    static let ids = Argument.positionals("ids", isRequired: true, help: "Asset identifiers.")
    static let arguments = LibraryOptions.arguments + declared(offset, zone, reset, ids)

    var library: LibraryOptions
    var ids: [String]
    var setting: UserTimeSetting?

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        ids = try parsed[Self.ids]
        let offset = try parsed[Self.offset], zone = try parsed[Self.zone], reset = try parsed[Self.reset]
        guard [offset != nil, zone != nil, reset].filter({ $0 }).count == 1 else {
            throw ValidationError("give one of --offset, --zone or --reset")
        }
        do {
            setting = try CaptureTimeArgument.setting(offset: offset, zone: zone) { "--" + $0 }
        } catch let error as ParameterError {
            throw ValidationError(error.message)
        }
    }

    func run(in context: CommandContext) async throws {
        let mediaLibrary = try library.open(.create, in: context)
        try await mediaLibrary.setCaptureTime(setting, for: try AssetArgument.identifiers(ids))
        context.standardOutput.writeLine("\(setting == nil ? "Reset" : "Adjusted"): \(ids.count) asset\(ids.count == 1 ? "" : "s").")
    }
}
