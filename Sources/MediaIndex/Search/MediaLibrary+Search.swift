import CSQLite
import Foundation
import Synchronization

extension MediaLibrary {
    /// The whole result of a search, as identifiers: a fetch result. See
    /// `Blocking.search(_:options:)`.
    ///
    /// ```swift
    /// let result = try await library.search("beach camera:canon -is:screenshot")
    /// ```
    ///
    /// - Throws: as `Blocking.search(_:options:)`.
    public func search(_ query: String, options: FetchOptions = FetchOptions()) async throws -> FetchResult {
        try await offExecutor { try $0.search(query, options: options) }
    }

    /// Completions for the last word of `text`, with how many assets each finds. See
    /// `Blocking.searchSuggestions(for:limit:)`.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func searchSuggestions(for text: String, limit: Int = 10) async throws -> [SearchSuggestion] {
        try await offExecutor { try $0.searchSuggestions(for: text, limit: limit) }
    }
}

extension MediaLibrary.Blocking {
    /// The whole result of a search, in the order of `options` (newest first by
    /// default), at the current change token: a fetch result, so
    /// `changeDetails(for:from:)` with the same options diffs it later.
    ///
    /// ```swift
    /// let result = try library.blocking.search("beach camera:canon -is:screenshot")
    /// ```
    ///
    /// - Throws: `SearchQueryError` for a query that cannot be read or names an album
    ///   that does not exist; `AssetQueryError`, `LibraryError` as `fetchResult` does.
    public func search(_ query: String, options: FetchOptions = FetchOptions()) throws -> FetchResult {
        var options = options
        options.search = try SearchQuery(parsing: query)
        return try fetchResult(options)
    }
}

/// A completion for the word being typed: the term to put in its place, what it names
/// and how many assets it finds.
public struct SearchSuggestion: Sendable, Equatable {
    /// What a suggestion names.
    public enum Kind: String, Sendable, CaseIterable {
        case field, camera, album, year, keyword, person, place
    }

    /// What it names.
    public var kind: Kind
    /// The value as shown (`Canon EOS 6D`, `2023`, `camera:`).
    public var text: String
    /// The search term replacing the word being typed (`camera:"Canon EOS 6D"`).
    public var term: String
    /// Assets with this value (hidden ones and every burst frame counted); nil for a field name.
    public var count: Int?
}

extension MediaLibrary.Blocking {
    /// Completions for the last word of `text` (a `field:` prefix limits them to that
    /// field), most assets first: field names, then cameras, albums and years, and every
    /// `SuggestionSource`. Matching ignores case and accents and looks at every word of a
    /// value (`eos` suggests `Canon EOS 6D`).
    ///
    /// Counts come from a catalogue read once and kept while the library is unchanged,
    /// or for up to `SuggestionCatalog.staleSeconds` while a writer is busy (then read
    /// again on another thread), so typing never waits for a count over the library.
    ///
    /// - Throws: `LibraryError.database` when the database fails.
    public func searchSuggestions(for text: String, limit: Int = 10) throws -> [SearchSuggestion] {
        let word = text.last.map { $0.isWhitespace } ?? true ? "" : String(text.split(whereSeparator: \.isWhitespace).last ?? "")
        var partial = word.hasPrefix("-") ? String(word.dropFirst()) : word
        var fieldName: String?
        if let colon = partial.firstIndex(of: ":") {
            fieldName = SearchField.named(String(partial[..<colon]))?.name ?? String(partial[..<colon]).lowercased()
            partial = String(partial[partial.index(after: colon)...])
            if partial.hasPrefix("\"") { partial.removeFirst() }
        }
        let key = SuggestionCatalog.fold(partial)
        var found: [SearchSuggestion] = []
        if fieldName == nil {
            for field in SearchField.all where !key.isEmpty && field.name.hasPrefix(key) {
                found.append(SearchSuggestion(kind: .field, text: field.name + ":", term: field.name + ":", count: nil))
            }
        }
        guard !key.isEmpty || fieldName != nil else { return [] }
        let catalog = try library.suggestionCatalog.entries(library: library)
        var matched = catalog.filter { entry in
            (fieldName == nil || entry.field == fieldName) && (key.isEmpty || entry.words.contains { $0.hasPrefix(key) })
        }
        matched.sort { ($0.count, $1.text) > ($1.count, $0.text) }
        found += matched.map { entry in
            let value = entry.text.contains(where: { $0.isWhitespace || $0 == "\"" })
                ? "\"" + entry.text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : entry.text
            return SearchSuggestion(kind: entry.kind, text: entry.text, term: "\(entry.field):\(value)", count: entry.count)
        }
        return Array(found.prefix(max(0, min(limit, 100))))
    }
}

/// The values suggestions complete to, with their counts, kept per library.
final class SuggestionCatalog: Sendable {
    struct Entry: Sendable {
        var kind: SearchSuggestion.Kind
        var field: String
        var text: String
        var count: Int
        /// The folded words of `text`, for prefix matching.
        var words: [String]
    }

    private struct State {
        var entries: [Entry]?
        var version: LibraryDataVersion?
        var readAt = Date.distantPast
        var refreshing = false
    }

    /// How long entries read at an older data version are still served while a new read runs.
    static let staleSeconds = 5.0
    private let state = Mutex(State())

    /// `text` without case, accents or width (ASCII is only lowercased, much faster).
    static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    func entries(library: MediaLibrary) throws -> [Entry] {
        let version = try library.blocking.dataVersion()
        let (current, startRefresh) = state.withLock { state -> ([Entry]?, Bool) in
            guard let entries = state.entries else { return (nil, false) }
            if state.version == version { return (entries, false) }
            if Date().timeIntervalSince(state.readAt) < Self.staleSeconds || state.refreshing {
                return (entries, false)
            }
            state.refreshing = true
            return (entries, true)
        }
        if let current {
            if startRefresh {
                Thread.detachNewThread { [self] in
                    let fresh = try? Self.read(library)
                    state.withLock { state in
                        if let fresh { state.entries = fresh; state.version = version; state.readAt = Date() }
                        state.refreshing = false
                    }
                }
            }
            return current
        }
        let fresh = try Self.read(library)
        state.withLock { state in
            state.entries = fresh
            state.version = version
            state.readAt = Date()
        }
        return fresh
    }

    private static func read(_ library: MediaLibrary) throws -> [Entry] {
        try library.read { db in
            var rows: [(field: String, row: Row)] = []
            if try db.hasTable(SuggestionSource.table) {
                rows = try db.rows("SELECT field, value, assets FROM \(SuggestionSource.table) WHERE assets > 0")
                    .map { ($0.string("field") ?? "", $0) }
            } else {  // an index built before the kept counts, read by a build that may not rebuild it
                for source in SuggestionSource.all {
                    rows += try db.rows(source.grouped, [0]).map { (source.field, $0) }
                }
            }
            rows += try db.rows(albums).map { ("album", $0) }
            var merged: [String: Entry] = [:]
            for (field, row) in rows {
                guard let text = row.string("value"), !text.isEmpty,
                      let kind = field == "album" ? .album : SuggestionSource.kind(of: field) else { continue }
                let folded = fold(text)
                let key = field + "\u{0}" + folded
                let count = row.int("assets") ?? 0
                if merged[key] != nil { merged[key]?.count += count; continue }
                let words = folded.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
                merged[key] = Entry(kind: kind, field: field, text: text, count: count, words: [folded] + words)
            }
            return Array(merged.values)
        }
    }

    /// The user's albums with how many assets each holds: `value`, `assets`.
    private static let albums = """
        SELECT al.title AS value, count(m.asset_identifier) AS assets FROM userstate.albums al
        LEFT JOIN userstate.album_assets m ON m.album_id = al.id GROUP BY al.id
        """

    /// The name of the SQL function `suggestion_fold(text)`: `fold(_:)`, the key values are
    /// counted under in `search_values`.
    static let foldFunction = "suggestion_fold"

    /// Registers `suggestion_fold`.
    static func register(on handle: OpaquePointer) {
        SQLTextFunction.register(foldFunction, on: handle, fold)
    }
}
