import Foundation

/// Values a `files.metadata` column holds as JSON (a sidecar's, an adjustments file's):
/// written with sorted keys, so equal values are equal text, and read back leniently.
protocol StoredJSON: Codable {}

extension StoredJSON {
    /// The values of a stored JSON text; nil for NULL or text that does not decode.
    static func decode(_ json: String?) -> Self? {
        guard let json else { return nil }
        return try? JSONDecoder().decode(Self.self, from: Data(json.utf8))
    }

    /// The JSON text to store (`{}` if encoding failed).
    func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
