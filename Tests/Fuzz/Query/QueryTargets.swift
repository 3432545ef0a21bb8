// The query layer's parsers of user text: the filter grammar and the paging cursor.
// Built by scripts/fuzz as a second binary, with the few MediaIndex sources they need.

// Every query fuzz target, by name (the metadata binary has its own table).
let fuzzTargets: [String: ([UInt8]) -> Void] = [
    "filter-grammar": fuzzFilterGrammar,
    "cursor": fuzzCursor,
]

/// Any text either parses to a filter whose SQL builds, or gives a readable error.
func fuzzFilterGrammar(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let filter = try? MediaFilter(parsing: text) else { return }
    _ = filter.sqlCondition()
    // What parses must print and parse back to the same filter.
    if let again = try? MediaFilter(parsing: filter.description), again != filter {
        fatalError("'\(text)' parsed to \(filter), whose text parses to \(again)")
    }
}

/// Any token either decodes to a cursor that encodes back to itself, or gives an error.
func fuzzCursor(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let cursor = try? AssetCursor.decode(text) else { return }
    if let again = try? AssetCursor.decode(cursor.encoded), again != cursor {
        fatalError("cursor '\(text)' does not survive a round trip")
    }
}
