import Foundation
@testable import MediaIndex

// Test-only spellings, so the specifications keep reading as they did: identifiers and
// fields as text, times as Unix seconds. The library's own API has none of these.

extension MediaLibrary {
    /// Every asset of the library, whole, newest first: what the tests read back.
    func assets() throws -> [Asset] { try blocking.fetchAssets(.everyAsset).assets }

    /// Calls `body` with every asset, newest first, page by page.
    func forEachAsset(pageSize: Int = 1000, _ body: (Asset) throws -> Void) throws {
        var options = FetchOptions.everyAsset
        options.limit = pageSize
        while true {
            let page = try blocking.fetchAssets(options)
            for asset in page.assets { try body(asset) }
            guard let next = page.nextCursor else { return }
            options.after = next
        }
    }
}

extension Asset.ID: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(stored: value) }
}

extension Album.ID: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(stored: value) }
}

extension Asset.Field: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(rawValue: value) }
}

extension ChangeToken: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self.init(rawValue: value) }
    static func + (token: ChangeToken, offset: Int64) -> ChangeToken { ChangeToken(rawValue: token.rawValue + offset) }
}

extension Date: @retroactive ExpressibleByIntegerLiteral {
    /// Unix seconds.
    public init(integerLiteral value: Int) { self.init(timeIntervalSince1970: TimeInterval(value)) }
}

extension Asset.ID: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(rawValue) }
}

extension MediaLibrary {
    /// The same library opened again with its thumbnails in `cache`.
    func with(_ cache: ThumbnailCache) throws -> MediaLibrary {
        try MediaLibrary(location: location, cache: cache)
    }
}
