import Foundation

extension MediaLibrary {
    /// Every change to an asset after `token`, oldest first, and the current token.
    /// See `Blocking.changes(since:)`.
    ///
    /// - Throws: as `Blocking.changes(since:)`.
    public func changes(since token: ChangeToken) async throws -> AssetChanges {
        try await offExecutor { try $0.changes(since: token) }
    }

    /// The token of the newest change (`.initial` when nothing has changed yet).
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func currentChangeToken() async throws -> ChangeToken {
        try await offExecutor { try $0.currentChangeToken() }
    }

    /// Whether any change of one of `kinds` came after `token`, without loading the
    /// changes (an index run of 100,000 new files makes 100,000 of them).
    ///
    /// It runs on the writer connection when there is one: after a first index the scan
    /// passes a million rows, and a reader's memory map would bring every page near them
    /// into the process (several hundred megabytes of resident file pages at a million
    /// files), where the writer reads through its bounded page cache.
    ///
    /// - Throws: `LibraryError.changeTokenExpired` as `changes(since:)` does.
    func hasChanges(since token: ChangeToken, of kinds: Set<AssetChange.Kind>) throws -> Bool {
        let query = { (db: DatabaseConnection) throws -> Bool in
            _ = try Self.answerableToken(token, db: db)
            let names = kinds.map(\.rawValue).sorted()
            guard !names.isEmpty else { return false }
            let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
            return try db.scalarInt("SELECT 1 FROM changes WHERE token > ? AND kind IN (\(placeholders)) LIMIT 1",
                                    [token.rawValue] + names) != nil
        }
        guard let writer else { return try read(query) }
        do { return try writer.write(query) } catch let error as DatabaseError { throw LibraryError.database(error) }
    }

    /// The current token, once `token` is known to be answerable: a token from before the
    /// trimmed history, or beyond the newest change (from a library since rebuilt), is not.
    static func answerableToken(_ token: ChangeToken, db: DatabaseConnection) throws -> ChangeToken {
        let start = Int64(try db.row("SELECT value FROM library_meta WHERE key = 'change_history_start'")?
            .string("value").flatMap { Int64($0) } ?? 1)
        let current = Int64(try db.scalarInt("SELECT max(token) FROM changes") ?? Int(start - 1))
        if token.rawValue > current {
            throw LibraryError.changeTokenFromTheFuture(token: token, current: ChangeToken(rawValue: current))
        }
        if token.rawValue < start - 1 {
            throw LibraryError.changeTokenExpired(token: token, oldest: ChangeToken(rawValue: start))
        }
        return ChangeToken(rawValue: current)
    }
}

extension MediaLibrary.Blocking {
    /// Every change to an asset after `token`, oldest first, and the current token.
    ///
    /// Pass `.initial` for the whole retained history. Like PhotoKit's persistent change
    /// tokens, a token older than the retained history cannot be answered.
    /// - Throws: `LibraryError.changeTokenExpired` when history after `token` has been
    ///   trimmed, `.changeTokenFromTheFuture` when `token` is newer than any change (the
    ///   library was rebuilt, or the token is another library's): do a full sync, then
    ///   continue from `currentChangeToken()`. `LibraryError.database`
    ///   when the database fails.
    public func changes(since token: ChangeToken) throws -> AssetChanges {
        try library.read { db in
            let current = try MediaLibrary.answerableToken(token, db: db)
            let rows = try db.rows(
                "SELECT token, identifier, kind, fields, changed_at FROM changes WHERE token > ? ORDER BY token",
                [token.rawValue])
            let changes = rows.map { row -> AssetChange in
                var fields: [Asset.Field] = []
                if let json = row.string("fields"), let data = json.data(using: .utf8),
                   let list = try? JSONDecoder().decode([String].self, from: data) {
                    fields = list.map(Asset.Field.init(rawValue:))
                }
                return AssetChange(token: ChangeToken(rawValue: row.int64("token") ?? 0),
                                   id: Asset.ID(stored: row.string("identifier") ?? ""),
                                   kind: AssetChange.Kind(rawValue: row.string("kind") ?? "") ?? .updated,
                                   fields: fields, date: Date(timeIntervalSince1970: row.double("changed_at") ?? 0))
            }
            return AssetChanges(changes: changes, currentToken: current)
        }
    }

    /// The token of the newest change (`.initial` when nothing has changed yet).
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func currentChangeToken() throws -> ChangeToken {
        try library.read { db in ChangeToken(rawValue: Int64(try db.scalarInt("SELECT max(token) FROM changes") ?? 0)) }
    }
}
