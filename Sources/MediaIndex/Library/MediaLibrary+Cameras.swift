import Foundation

/// One camera make with its models and how many assets each took.
public struct CameraMakeCount: Sendable, Equatable {
    /// The normalised make (`CameraNames.make`); nil for assets that record none.
    public var make: String?
    /// Assets of this make.
    public var count: Int
    /// Its models, most assets first; a nil model for assets that record none.
    public var models: [(model: String?, count: Int)]

    public static func == (a: CameraMakeCount, b: CameraMakeCount) -> Bool {
        a.make == b.make && a.count == b.count && a.models.count == b.models.count
            && zip(a.models, b.models).allSatisfy { $0.model == $1.model && $0.count == $1.count }
    }
}

extension MediaLibrary {
    /// The cameras of the library, with their asset counts. See `Blocking.cameras()`.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func cameras() async throws -> [CameraMakeCount] {
        try await offExecutor { try $0.cameras() }
    }
}

extension MediaLibrary.Blocking {
    /// The cameras of the library: makes and models as `CameraNames` normalises them,
    /// merged case-insensitively, with their asset counts; most assets first, assets
    /// with no make last.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func cameras() throws -> [CameraMakeCount] {
        let rows = try library.read { db in
            try db.rows("""
                SELECT camera_make(make) AS camera_make, camera_model(make, model) AS camera_model, count(*) AS n
                FROM assets GROUP BY make COLLATE NOCASE, model COLLATE NOCASE
                """).map { ($0.string("camera_make"), $0.string("camera_model"), $0.int("n") ?? 0) }
        }
        // Several recorded spellings become one name: merge them, case aside.
        var makes: [String: CameraMakeCount] = [:]
        var order: [String] = []
        for (make, model, count) in rows {
            let key = make?.lowercased() ?? "\u{0}"
            if makes[key] == nil { makes[key] = CameraMakeCount(make: make, count: 0, models: []); order.append(key) }
            makes[key]?.count += count
            if let index = makes[key]?.models.firstIndex(where: { $0.model?.lowercased() == model?.lowercased() }) {
                makes[key]?.models[index].count += count
            } else {
                makes[key]?.models.append((model, count))
            }
        }
        return order.compactMap { makes[$0] }.map { entry in
            var entry = entry
            entry.models.sort { ($0.count, $1.model ?? "") > ($1.count, $0.model ?? "") }
            return entry
        }.sorted { a, b in
            if (a.make == nil) != (b.make == nil) { return b.make == nil }
            return a.count != b.count ? a.count > b.count : (a.make ?? "") < (b.make ?? "")
        }
    }
}
