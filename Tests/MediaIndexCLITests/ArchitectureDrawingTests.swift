import Foundation
import Testing

/// The module graph drawn in `docs/architecture.md` (its ```` ```mermaid ```` blocks),
/// read as edges between target names: `A --> B` is "A imports B", `A -.-> B` a
/// build-time plugin relation. A node written `id["name"]` stands for the target `name`.
struct ModuleDrawing {
    var imports: [String: Set<String>] = [:]
    var nodes: Set<String> = []

    init(markdown: String) {
        var isInMermaid = false
        for rawLine in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") { isInMermaid = line == "```mermaid"; continue }
            guard isInMermaid, !line.hasPrefix("flowchart") else { continue }
            readEdges(line)
        }
    }

    private var labels: [String: String] = [:]

    /// `A --> B`, `A -.-> B -.-> C`: each endpoint `id` or `id["label"]`.
    private mutating func readEdges(_ line: String) {
        var rest = Substring(line)
        var previous: String?
        var previousArrowIsSolid = false
        while !rest.isEmpty {
            let solid = rest.range(of: "-->"), dotted = rest.range(of: "-.->")
            let next = [solid, dotted].compactMap { $0 }.min { $0.lowerBound < $1.lowerBound }
            let node = name(of: rest[..<(next?.lowerBound ?? rest.endIndex)])
            nodes.insert(node)
            if let previous, previousArrowIsSolid { imports[previous, default: []].insert(node) }
            previous = node
            previousArrowIsSolid = next != nil && next == solid
            rest = next.map { rest[$0.upperBound...] } ?? ""
        }
    }

    private mutating func name(of endpoint: Substring) -> String {
        let text = endpoint.trimmingCharacters(in: .whitespaces)
        guard let open = text.firstIndex(of: "[") else { return labels[text] ?? text }
        let id = String(text[..<open])
        let label = text[text.index(after: open)...].trimmingCharacters(in: CharacterSet(charactersIn: "[]\""))
        labels[id] = label
        return label
    }
}

@Suite("docs/architecture.md: the drawing names every target and matches the imports")
struct ArchitectureDrawingTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Modules of the system and the toolchain, which the drawing leaves out.
    static let systemModules: Set<String> = ["Foundation", "FoundationEssentials", "Glibc", "Musl", "Darwin", "Dispatch",
                                             "Synchronization", "Testing", "XCTest", "PackagePlugin"]

    /// Every target `Package.swift` declares, by the `name:` of each `.target(`-like call.
    static func packageTargets() throws -> [String] {
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let kinds = [".target(", ".executableTarget(", ".testTarget(", ".systemLibrary(", ".plugin("]
        var names: [String] = []
        for kind in kinds {
            for part in manifest.components(separatedBy: kind).dropFirst() {
                guard let start = part.range(of: "name: \""), let end = part[start.upperBound...].firstIndex(of: "\"") else { continue }
                names.append(String(part[start.upperBound..<end]))
            }
        }
        return names.sorted()
    }

    /// The non-system modules a target's sources import, found under `Sources/`, `Tests/` or `Plugins/`.
    static func imports(of target: String) -> Set<String> {
        let folders = ["Sources", "Tests", "Plugins"].map { packageRoot.appendingPathComponent($0).appendingPathComponent(target) }
        var result: Set<String> = []
        for folder in folders {
            guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in files where file.pathExtension == "swift" {
                guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
                for line in text.split(separator: "\n") {
                    let words = line.split(separator: " ").map(String.init)
                    guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                          words[..<index].allSatisfy({ $0.hasPrefix("@") || ["public", "package", "internal"].contains($0) })
                    else { continue }
                    // `import enum Module.Type` names a declaration of the module.
                    let kinds: Set<String> = ["enum", "struct", "class", "protocol", "func", "var", "let", "typealias", "actor"]
                    let named = kinds.contains(words[index + 1]) && index + 2 < words.count ? words[index + 2] : words[index + 1]
                    let module = String(named.prefix { $0 != "." })
                    if !systemModules.contains(module) { result.insert(module) }
                }
            }
        }
        return result
    }

    @Test("every target of Package.swift is drawn, and each arrow is an import and each import an arrow")
    func drawingMatchesImports() throws {
        let page = try String(contentsOf: Self.packageRoot.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let drawing = ModuleDrawing(markdown: page)
        let targets = try Self.packageTargets()
        #expect(targets.count > 20, "Package.swift's targets were not found")
        var problems: [String] = []
        for target in targets where !drawing.nodes.contains(target) {
            problems.append("\(target) is a target of Package.swift but is not drawn")
        }
        for node in drawing.nodes.sorted() where !targets.contains(node) {
            problems.append("\(node) is drawn but is not a target of Package.swift")
        }
        for target in targets {
            let actual = Self.imports(of: target), drawn = drawing.imports[target] ?? []
            for module in actual.subtracting(drawn).sorted() {
                problems.append("\(target) imports \(module), but the drawing has no arrow \(target) --> \(module)")
            }
            for module in drawn.subtracting(actual).sorted() {
                problems.append("the drawing has \(target) --> \(module), but no source of \(target) imports \(module)")
            }
        }
        #expect(problems.isEmpty, Comment(rawValue: "docs/architecture.md's module drawing is stale:\n"
                                          + problems.map { "- " + $0 }.joined(separator: "\n")))
    }

    @Test("the drawing is read as edges: solid arrows import, dotted ones do not, labels name nodes")
    func readsEdges() {
        let drawing = ModuleDrawing(markdown: """
            ```mermaid
            flowchart TD
                a_b["a-b"] --> C
                a_b --> D
                C -.-> E -.-> F
                C --> G
            ```
            ```
            X --> Y
            ```
            """)
        #expect(drawing.nodes == ["a-b", "C", "D", "E", "F", "G"])
        #expect(drawing.imports == ["a-b": ["C", "D"], "C": ["G"]])
    }
}
