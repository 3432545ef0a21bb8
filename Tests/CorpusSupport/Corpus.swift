import Foundation

/// Where the shared test corpus lives: `$MEDIAINDEX_CORPUS`, else `../shared/corpus`
/// beside the package. Tests that need it are enabled only when it is present; under
/// `CI=true` its absence is a failure (see `CorpusPresenceTests`).
public enum Corpus {
    /// The corpus folder, or nil when it cannot be found.
    public static let root: URL? = {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [URL] = []
        if let explicit = environment["MEDIAINDEX_CORPUS"], !explicit.isEmpty {
            candidates.append(URL(fileURLWithPath: explicit))
        }
        // The package root is three levels above this source file.
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus"))
        candidates.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            .deletingLastPathComponent().appendingPathComponent("shared/corpus"))
        return candidates.first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("manifest.json").path)
        }
    }()

    /// Whether the corpus was found.
    public static var isAvailable: Bool { root != nil }

    /// Whether this run is under CI, where a missing corpus must fail.
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The message shown when corpus tests are skipped.
    public static let missingMessage =
        "the shared corpus was not found at ../shared/corpus or $MEDIAINDEX_CORPUS; corpus tests are skipped"

    /// The real media files, `media/`.
    public static var media: URL? { root?.appendingPathComponent("media") }

    /// The synthetic cases, `synthetic/`.
    public static var synthetic: URL? { root?.appendingPathComponent("synthetic") }

    /// exiftool's readings (`exiftool.json`), keyed by path relative to `media/`.
    public static let exiftool: [String: [String: JSONValue]] = loadKeyed("exiftool.json")

    /// exiftool's readings of `synthetic/`, keyed by path relative to `synthetic/`.
    public static let syntheticExiftool: [String: [String: JSONValue]] = loadKeyed("synthetic-exiftool.json")

    /// ffprobe's readings (`ffprobe.json`), keyed by path relative to `media/`.
    public static let ffprobe: [String: JSONValue] = {
        guard let root, let data = try? Data(contentsOf: root.appendingPathComponent("ffprobe.json")),
              let value = try? JSONDecoder().decode([String: JSONValue].self, from: data) else { return [:] }
        return value
    }()

    /// The manifest: one entry per real file.
    public static let manifest: [[String: JSONValue]] = {
        guard let root, let data = try? Data(contentsOf: root.appendingPathComponent("manifest.json")),
              let value = try? JSONDecoder().decode([[String: JSONValue]].self, from: data) else { return [] }
        return value
    }()

    private static func loadKeyed(_ name: String) -> [String: [String: JSONValue]] {
        guard let root, let data = try? Data(contentsOf: root.appendingPathComponent(name)),
              let list = try? JSONDecoder().decode([[String: JSONValue]].self, from: data) else { return [:] }
        var byPath: [String: [String: JSONValue]] = [:]
        for entry in list {
            if case .string(let path)? = entry["SourceFile"] { byPath[path] = entry }
        }
        return byPath
    }
}

/// Any JSON value, for reading the reference tools' output.
public enum JSONValue: Decodable, Sendable, Equatable {
    case string(String), number(Double), bool(Bool), array([JSONValue]), object([String: JSONValue]), null

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let b = try? container.decode(Bool.self) { self = .bool(b) }
        else if let n = try? container.decode(Double.self) { self = .number(n) }
        else if let s = try? container.decode(String.self) { self = .string(s) }
        else if let a = try? container.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public var string: String? {
        switch self {
        case .string(let s): return s
        case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(n)
        default: return nil
        }
    }
    public var number: Double? {
        switch self {
        case .number(let n): return n
        case .string(let s): return Double(s)
        default: return nil
        }
    }
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }
}
