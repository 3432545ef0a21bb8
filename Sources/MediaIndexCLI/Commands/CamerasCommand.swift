import MediaIndex
import MediaIndexInterface

/// `mediaindex cameras`: makes and models with their counts.
struct CamerasCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "cameras",
        abstract: "List camera makes and models with their asset counts.",
        discussion: """
            Makes and models as --make and --model match them: known makers by their usual names \
            (NIKON CORPORATION is Nikon), a make repeated in the model dropped (Canon EOS 6D is EOS 6D).
            """
    )

    static let json = Argument.flag("json", help: "Print [{\"make\", \"count\", \"models\": [{\"model\", \"count\"}]}].")
    static let arguments = ReadOnlyListingOptions.arguments(json: json)

    var options: ReadOnlyListingOptions

    init(parsed: ParsedArguments) throws {
        options = try ReadOnlyListingOptions(parsed: parsed, json: Self.json)
    }

    func run(in context: CommandContext) async throws {
        let cameras = try await options.openLibrary(in: context).cameras()
        if options.json {
            context.standardOutput.writeLine(JSON.array(cameras.map { camera in
                .object([("make", JSON(camera.make)), ("count", .int(camera.count)),
                         ("models", .array(camera.models.map { .object([("model", JSON($0.model)), ("count", .int($0.count))]) }))])
            }).prettyText)
            return
        }
        guard !cameras.isEmpty else {
            context.standardOutput.writeLine("No assets. Index a folder first: mediaindex index ~/Pictures")
            return
        }
        let table = TableRenderer(columns: [TableColumn("MAKE"), TableColumn("MODEL"),
                                            TableColumn("ASSETS", alignment: .right, isTruncatable: false)])
        var rows: [[String]] = []
        for camera in cameras {
            rows.append([camera.make ?? "(no make)", "", String(camera.count)])
            for model in camera.models { rows.append(["", model.model ?? "(no model)", String(model.count)]) }
        }
        context.standardOutput.writeLine(table.render(rows, maxWidth: context.terminalWidth))
    }
}
