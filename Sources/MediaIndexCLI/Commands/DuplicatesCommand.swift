import MediaIndex
import MediaIndexInterface

/// `mediaindex duplicates`: same files, duplicates and similar shots; `duplicates resolve`.
struct DuplicatesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "duplicates",
        abstract: "List duplicate and similar photos, or resolve them.",
        discussion: """
            duplicates [--kind same-file|duplicate|similar] [--json]; duplicates resolve GROUP [--keep ID] [--print0]. \
            Hashes still missing are computed and kept. resolve hides the other members (undo with unhide) and \
            copies their favourite mark, album memberships, keywords and (when the keeper has none) GPS position onto \
            the keeper, in user state; it never deletes, moves or writes a file. \
            --print0 prints the other members' paths, NUL-terminated, for your own tools.
            """
    )

    static let action = Argument.positionals("action", help: "resolve GROUP, or nothing to list.")
    static let kind = Argument.option("kind", valueName: "kind", help: "Only groups of this kind: same-file, duplicate or similar.")
    static let keep = Argument.option("keep", valueName: "id", help: "For resolve: the member to keep (default: the group's keeper).")
    static let print0 = Argument.flag("print0", help: "For resolve: print the hidden members' paths, NUL-terminated.")
    static let json = Argument.flag("json", help: "Print one JSON object per group, one per line.")
    static let arguments = LibraryOptions.arguments + declared(action, kind, keep, print0, json)

    var library: LibraryOptions
    var action: [String]
    var kind: DuplicateKind?
    var keep: String?
    var print0: Bool
    var json: Bool

    init(parsed: ParsedArguments) throws {
        library = try LibraryOptions(parsed: parsed)
        action = try parsed[Self.action]
        let kindText = try parsed[Self.kind]
        kind = kindText.flatMap(DuplicateKind.init(rawValue:))
        if kindText != nil && kind == nil {
            throw ValidationError("--kind must be same-file, duplicate or similar, not '\(kindText ?? "")'")
        }
        keep = try parsed[Self.keep]
        print0 = try parsed[Self.print0]
        json = try parsed[Self.json]
    }

    func validate() throws {
        if action.isEmpty {
            if keep != nil || print0 { throw ValidationError("--keep and --print0 go with 'duplicates resolve GROUP'") }
            return
        }
        guard action[0] == "resolve" else { throw ValidationError("unknown action '\(action[0])'; the action is resolve") }
        guard action.count == 2 else { throw ValidationError("'duplicates resolve' takes one group identifier") }
    }

    func run(in context: CommandContext) async throws {
        let mediaLibrary = try library.open(.existing, in: context)
        if action.first == "resolve" { return try await resolve(action[1], library: mediaLibrary, in: context) }
        let groups = try await mediaLibrary.duplicateGroups(kind: kind)
        if json {
            for group in groups { context.standardOutput.writeLine(DuplicateJSON.group(group).compactText) }
            return
        }
        guard !groups.isEmpty else {
            context.standardOutput.writeLine("No \(kind.map { "\($0.rawValue) " } ?? "")groups.")
            return
        }
        let table = TableRenderer(columns: [TableColumn("GROUP", isTruncatable: false), TableColumn("KIND", isTruncatable: false),
                                            TableColumn("DISTANCE", alignment: .right, isTruncatable: false),
                                            TableColumn("KEEP", isTruncatable: false), TableColumn("WHY"),
                                            TableColumn("OTHERS")])
        let rows = groups.map { group -> [String] in
            let others = group.assets.filter { $0 != group.keeper }.map { other in
                other.rawValue + (group.extras[other].map { " (+" + $0.joined(separator: ",") + ")" } ?? "")
            }
            return [group.id, group.kind.rawValue, String(group.distance), group.keeper?.rawValue ?? "",
                    group.keeperReason?.rawValue ?? "", others.joined(separator: " ")]
        }
        context.standardOutput.writeLine(table.render(rows, maxWidth: context.terminalWidth))
    }

    private func resolve(_ group: String, library mediaLibrary: MediaLibrary, in context: CommandContext) async throws {
        let keeper = try keep.map { text -> Asset.ID in
            guard let id = Asset.ID(text) else { throw ValidationError("--keep takes an asset identifier, not '\(text)'") }
            return id
        }
        let resolution = try await mediaLibrary.resolveDuplicateGroup(group, keep: keeper)
        if print0 {
            for path in resolution.hiddenPaths { context.standardOutput.write(bytes: path.bytes + [0]) }
            return
        }
        let merged = resolution.merged.isEmpty ? "" : "; copied \(resolution.merged.joined(separator: " and ")) onto it"
        context.standardOutput.writeLine("Kept \(resolution.keeper.rawValue), hid \(resolution.hidden.count) "
            + "(undo: mediaindex unhide \(resolution.hidden.map(\.rawValue).joined(separator: " ")))\(merged).")
    }
}
