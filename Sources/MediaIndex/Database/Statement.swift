import CSQLite

/// A prepared statement; finalized when released.
///
/// Not `Sendable`: it belongs to the connection that prepared it.
package final class Statement {
    let handle: OpaquePointer
    /// The SQL, for error messages.
    package let sql: String
    private unowned let connection: DatabaseConnection

    init(connection: DatabaseConnection, sql: String) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw connection.error(code: code, sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds the values to parameters 1…n, after resetting the statement.
    /// Wraps `sqlite3_bind_*`.
    package func bind(_ values: [DatabaseValueConvertible]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value.databaseValue {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let v): code = sqlite3_bind_int64(handle, index, v)
            case .real(let v): code = sqlite3_bind_double(handle, index, v)
            case .text(let v): code = sqlite3_bind_text(handle, index, v, -1, mediaindex_sqlite_transient())
            case .blob(let v):
                code = v.withUnsafeBytes { raw in
                    // A zero-length blob must still bind as a blob, not NULL.
                    sqlite3_bind_blob(handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(v.count), mediaindex_sqlite_transient())
                }
            }
            guard code == SQLITE_OK else { throw connection.error(code: code, sql: sql) }
        }
    }

    /// Runs the statement to completion, ignoring any rows.
    package func execute(_ values: [DatabaseValueConvertible] = []) throws {
        try bind(values)
        while try step() {}
    }

    /// Steps once; true when a row is available. Wraps `sqlite3_step`.
    @discardableResult
    package func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw connection.error(code: code, sql: sql)
        }
    }

    /// Runs the statement and returns every row.
    package func rows(_ values: [DatabaseValueConvertible] = []) throws -> [Row] {
        try bind(values)
        var result: [Row] = []
        while try step() { result.append(currentRow()) }
        return result
    }

    /// Runs the statement and calls `body` with each row as it is read.
    package func forEachRow(_ values: [DatabaseValueConvertible] = [], _ body: (Row) throws -> Void) throws {
        try bind(values)
        while try step() { try body(currentRow()) }
    }

    /// The row the statement is on.
    func currentRow() -> Row {
        let count = sqlite3_column_count(handle)
        var values: [DatabaseValue] = []
        values.reserveCapacity(Int(count))
        for column in 0..<count {
            switch sqlite3_column_type(handle, column) {
            case SQLITE_INTEGER: values.append(.integer(sqlite3_column_int64(handle, column)))
            case SQLITE_FLOAT: values.append(.real(sqlite3_column_double(handle, column)))
            case SQLITE_TEXT:
                if let text = sqlite3_column_text(handle, column) {
                    let length = Int(sqlite3_column_bytes(handle, column))
                    let bytes = UnsafeBufferPointer(start: text, count: length)
                    values.append(.text(String(decoding: bytes, as: UTF8.self)))
                } else { values.append(.text("")) }
            case SQLITE_BLOB:
                let length = Int(sqlite3_column_bytes(handle, column))
                if let blob = sqlite3_column_blob(handle, column), length > 0 {
                    values.append(.blob(Array(UnsafeRawBufferPointer(start: blob, count: length))))
                } else { values.append(.blob([])) }
            default: values.append(.null)
            }
        }
        return Row(values: values, columns: ColumnNames.of(self))
    }

    private var cachedColumns: [String: Int]?
    var columnIndex: [String: Int] {
        if let cachedColumns { return cachedColumns }
        var map: [String: Int] = [:]
        for column in 0..<sqlite3_column_count(handle) {
            if let name = sqlite3_column_name(handle, column) { map[String(cString: name)] = Int(column) }
        }
        cachedColumns = map
        return map
    }
}

/// Column name lookup shared by all rows of one statement.
final class ColumnNames: @unchecked Sendable {
    // Immutable after init; safe to share.
    let index: [String: Int]
    init(_ index: [String: Int]) { self.index = index }
    static func of(_ statement: Statement) -> ColumnNames { ColumnNames(statement.columnIndex) }
}

/// One result row; values are read by column name or position.
package struct Row: Sendable {
    package let values: [DatabaseValue]
    let columns: ColumnNames

    package subscript(_ position: Int) -> DatabaseValue { values[position] }

    package subscript(_ name: String) -> DatabaseValue {
        guard let i = columns.index[name] else { return .null }
        return values[i]
    }

    package func int(_ name: String) -> Int? { self[name].int }
    package func int64(_ name: String) -> Int64? { self[name].int64 }
    package func double(_ name: String) -> Double? { self[name].double }
    package func string(_ name: String) -> String? { self[name].text }
    package func blob(_ name: String) -> [UInt8]? { self[name].blob }
    package func bool(_ name: String) -> Bool? { int(name).map { $0 != 0 } }
}
