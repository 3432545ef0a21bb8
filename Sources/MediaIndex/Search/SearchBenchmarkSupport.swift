extension MediaLibrary {
    /// Drops the triggers that keep the text index, so a benchmark can seed the same
    /// assets without it and compare (the library's next writable open installs them again).
    package func dropSearchTextUpkeep() throws {
        try requireWriter().write { db in
            for statement in try SearchTextIndex.dropStatements(db) { try db.execute(statement) }
            try db.execute("DELETE FROM search_text_schema")
        }
    }

    /// The reference a text index is measured against: every word as a `LIKE '%word%'`
    /// over the file name, make, model, lens, keywords and caption, ANDed; the first page of `limit` newest
    /// and the count, as a search answers them.
    package func likeScan(words: [String], limit: Int) throws -> (page: Int, count: Int) {
        let test = words.map { _ in
            "(a.file_name LIKE ?1 OR a.make LIKE ?1 OR a.model LIKE ?1 OR a.lens_model LIKE ?1 OR a.keywords LIKE ?1 OR a.caption LIKE ?1)"
        }
        return try read { db in
            let condition = test.enumerated().map { $0.element.replacingOccurrences(of: "?1", with: "?\($0.offset + 1)") }
                .joined(separator: " AND ")
            let values: [DatabaseValueConvertible] = words.map { "%" + $0 + "%" }
            let page = try db.rows("""
                SELECT a.identifier FROM assets a WHERE \(condition) AND a.is_burst_representative = 1
                ORDER BY a.capture_sort DESC, a.id DESC LIMIT \(limit)
                """, values).count
            let count = try db.scalarInt(
                "SELECT count(*) FROM assets a WHERE \(condition) AND a.is_burst_representative = 1", values) ?? 0
            return (page, count)
        }
    }
}
