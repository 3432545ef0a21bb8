import Foundation

extension MediaLibrary {
    /// Every change to an asset after `token`, oldest first, and the current token.
    ///
    /// Pass 0 for the whole retained history. Like PhotoKit's persistent change
    /// tokens, a token older than the retained history cannot be answered.
    /// - Throws: `LibraryError.changeTokenExpired` when history after `token` has been
    ///   trimmed, `.changeTokenFromTheFuture` when `token` is newer than any change (the
    ///   library was rebuilt, or the token is another library's): do a full sync, then
    ///   continue from `currentChangeToken()`.
    public func changes(since token: Int64) throws -> AssetChanges {
        try read { db in
            let current = try Self.answerableToken(token, db: db)
            let rows = try db.rows(
                "SELECT token, identifier, kind, fields, changed_at FROM changes WHERE token > ? ORDER BY token",
                [token])
            let changes = rows.map { row -> AssetChange in
                var fields: [String] = []
                if let json = row.string("fields"), let data = json.data(using: .utf8),
                   let list = try? JSONDecoder().decode([String].self, from: data) {
                    fields = list
                }
                return AssetChange(token: row.int64("token") ?? 0, identifier: row.string("identifier") ?? "",
                                   kind: AssetChangeKind(rawValue: row.string("kind") ?? "") ?? .updated,
                                   fields: fields, date: row.double("changed_at") ?? 0)
            }
            return AssetChanges(changes: changes, currentToken: current)
        }
    }

    /// Whether any change of one of `kinds` came after `token`, without loading the
    /// changes (an index run of 100,000 new files makes 100,000 of them).
    ///
    /// - Throws: `LibraryError.changeTokenExpired` as `changes(since:)` does.
    public func hasChanges(since token: Int64, of kinds: Set<AssetChangeKind>) throws -> Bool {
        try read { db in
            _ = try Self.answerableToken(token, db: db)
            let names = kinds.map(\.rawValue).sorted()
            guard !names.isEmpty else { return false }
            let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
            return try db.scalarInt("SELECT 1 FROM changes WHERE token > ? AND kind IN (\(placeholders)) LIMIT 1",
                                    [token] + names) != nil
        }
    }

    /// The current token, once `token` is known to be answerable: a token from before the
    /// trimmed history, or beyond the newest change (from a library since rebuilt), is not.
    private static func answerableToken(_ token: Int64, db: DatabaseConnection) throws -> Int64 {
        let start = Int64(try db.row("SELECT value FROM library_meta WHERE key = 'change_history_start'")?
            .string("value").flatMap { Int64($0) } ?? 1)
        let current = Int64(try db.scalarInt("SELECT max(token) FROM changes") ?? Int(start - 1))
        if token > current {
            throw LibraryError.changeTokenFromTheFuture(token: token, current: current)
        }
        if token < start - 1 {
            throw LibraryError.changeTokenExpired(token: token, oldest: start)
        }
        return current
    }

    /// The token of the newest change (0 when nothing has changed yet).
    public func currentChangeToken() throws -> Int64 {
        try read { db in Int64(try db.scalarInt("SELECT max(token) FROM changes") ?? 0) }
    }
}
