import Foundation

/// FetchOptions turned into SQL: a FROM clause, WHERE conditions and an order.
///
/// User values are always bound parameters; the only literals spliced into the SQL are
/// constants of this module (column names, subtype bits).
struct AssetQuery {
    var from = "assets a"
    /// The index counts should read, where the planner would otherwise scan another one
    /// and look every row up (Recently Added: SQLite cannot know nearly all rows match;
    /// Places: it would read every asset).
    var countingIndex: String?
    var fromValues: [DatabaseValueConvertible] = []
    var conditions: [SQLCondition] = []
    var sort = AssetSort.newestFirst
    var limit: Int?
    var cursor: AssetCursor?
    /// Hidden assets are left out (tested per row in pages; subtracted in counts).
    var excludesHidden = false
    /// When the query selects by kind alone (media type, subtypes, bursts), the filter
    /// that says so (nil inside: every kind): counts then sum `asset_kinds`, a few rows
    /// kept by triggers, instead of reading a million index entries.
    var kindFilter: MediaFilter??
    /// Recently Added's cut-off, when the query is that album.
    var recentlyAddedSince: Double?
    /// The user album titles a search names (`album:`), checked by `checkSearch`.
    var searchAlbumTitles: [String] = []
    var searchText: String?
    /// The words a search ANDs at its top (see `SearchPlan`).
    var textMatch: (file: String, user: String?, condition: SQLCondition)?
    /// Pages are sorted after their rows are read (`ORDER BY +column`), so the planner
    /// reads the rows a condition's list names (a rare word's matches, by rowid) instead
    /// of walking the sort order's index through every asset (see `SearchPlan`).
    var sortsAfterReading = false

    static var hiddenCondition: SQLCondition {
        SQLCondition(sql: "NOT EXISTS (SELECT 1 FROM userstate.asset_user_state h WHERE h.identifier = a.identifier AND h.hidden = 1)")
    }

    init(_ options: FetchOptions, now: Double = Date().timeIntervalSince1970) throws {
        if let filter = options.filter {
            let condition = filter.sqlCondition()
            if condition.sql != "1" { conditions.append(condition) }
        }
        let (defaultSort, albumShowsHidden) = try scope(to: options.album, now: now)
        var includeHidden = options.includeHidden || albumShowsHidden
        if let expression = options.search?.expression {
            conditions.append(expression.sqlCondition())
            searchAlbumTitles = expression.albumTitles
            searchText = options.search?.text
            textMatch = expression.topWords
            if expression.mentionsHidden { includeHidden = true }
        }
        excludesHidden = !includeHidden
        if !options.includeAllBurstAssets { conditions.append(SQLCondition(sql: "a.is_burst_representative = 1")) }
        try appendCaptureAndCameraConditions(options)
        try appendSizeAndFormatConditions(options)
        kindFilter = Self.kindOnlyFilter(options)
        if let limit = options.limit, limit < 0 { throw AssetQueryError.negativeLimit(limit) }
        limit = options.limit

        sort = options.sort ?? defaultSort
        if sort.key == .albumOrder, case .user = options.album {} else if sort.key == .albumOrder {
            throw AssetQueryError.albumOrderNeedsUserAlbum
        }
        if let after = options.after { cursor = try Self.decodeCursor(after, sort: sort) }
    }

    /// The album's conditions (or join), with the order it sorts in by default and whether
    /// it shows hidden assets.
    private mutating func scope(to album: AlbumScope?, now: Double) throws
        -> (defaultSort: AssetSort, includesHidden: Bool) {
        var includeHidden = false
        var defaultSort = AssetSort.newestFirst
        switch album {
        case nil: break
        case .smart(let album)?:
            switch album {
            case .recents: break
            case .favorites:
                conditions.append(SQLCondition(sql: "a.identifier IN (SELECT identifier FROM userstate.asset_user_state WHERE favorite = 1)"))
            case .hidden:
                includeHidden = true
                conditions.append(SQLCondition(sql: "a.identifier IN (SELECT identifier FROM userstate.asset_user_state WHERE hidden = 1)"))
            case .recentlyAdded:
                defaultSort = AssetSort(.addedDate)
                countingIndex = "assets_by_added_kind"
                recentlyAddedSince = now - SmartAlbum.recentlyAddedSeconds
                conditions.append(SQLCondition(sql: "a.added_at >= ?", values: [now - SmartAlbum.recentlyAddedSeconds]))
            case .onThisDay:
                // Today on this machine's calendar, in the years before this one.
                conditions.append(Self.onThisDayCondition(OnThisDay(today: Date(timeIntervalSince1970: now))))
            default:
                if let filter = album.filter { conditions.append(filter.sqlCondition()) }
            }
        case .folder(let path, let recursive)?:
            if recursive {
                // The folder and every folder whose path starts with it and a '/': the
                // byte range [path + "/", path + "0"), as SQLite orders BLOBs.
                let base = path.bytes.last == UInt8(ascii: "/") ? Array(path.bytes.dropLast()) : path.bytes
                conditions.append(SQLCondition(
                    sql: "a.folder_id IN (SELECT id FROM folders WHERE path = ? OR (path >= ? AND path < ?))",
                    values: [path.bytes, base + [UInt8(ascii: "/")], base + [UInt8(ascii: "0")]]))
            } else {
                conditions.append(SQLCondition(sql: "a.folder_id = (SELECT id FROM folders WHERE path = ?)", values: [path.bytes]))
            }
        case .user(let id)?:
            guard let identifier = id.userAlbumIdentifier else { throw AssetQueryError.notAUserAlbum(id) }
            defaultSort = AssetSort(.albumOrder)
            from = """
                assets a JOIN userstate.album_assets m ON m.asset_identifier = a.identifier
                    AND m.album_id = (SELECT id FROM userstate.albums WHERE identifier = ?)
                """
            fromValues = [identifier]
        case .place(let album)?:
            conditions.append(album.condition)
            // Left to itself the planner counts Places (`IS NOT NULL`) by scanning every
            // asset in media-type order; the place index (migration 0058) covers the count.
            countingIndex = "assets_by_place"
        }
        return (defaultSort, includeHidden)
    }

    /// The capture range, place and camera options.
    private mutating func appendCaptureAndCameraConditions(_ options: FetchOptions) throws {
        conditions += SQLCondition.comparisons([
            ("a.capture_sort >= ?", options.capturedFrom?.timeIntervalSince1970),
            ("a.capture_sort < ? AND a.capture_sort > -1e300", options.capturedBefore?.timeIntervalSince1970),
            ("a.local_time >= ?", options.capturedFromLocalTime?.timeIntervalSince1970),
            ("a.local_time < ?", options.capturedBeforeLocalTime?.timeIntervalSince1970),
        ])
        if let period = options.period { conditions.append(Self.periodCondition(period)) }
        if let onThisDay = options.onThisDay { conditions.append(Self.onThisDayCondition(onThisDay)) }
        if let place = options.place { conditions.append(try Self.placeCondition(place)) }
        if let country = options.country { conditions.append(PlaceNames.countryCondition(country)) }
        if let name = options.placeName { conditions.append(PlaceNames.placeCondition(name)) }
        if let make = options.make.flatMap(CameraNames.make) {
            // Every recorded spelling of the make (NIKON CORPORATION for Nikon), so the
            // camera index answers; then the normalised name, for makes not in the table.
            let spellings = CameraNames.spellings(ofMake: make)
            conditions.append(SQLCondition(
                sql: "a.make COLLATE NOCASE IN (\(spellings.map { _ in "?" }.joined(separator: ", "))) AND camera_make(a.make) = ? COLLATE NOCASE",
                values: spellings + [make]))
        }
        if let model = options.model.flatMap({ CameraNames.model($0, make: nil) }) {
            // The recorded model ends with what was typed (LIKE narrows, ASCII case aside);
            // it matches the normalised model, or the recorded one whole.
            let pattern = "%" + model.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
            conditions.append(SQLCondition(
                sql: "a.model LIKE ? ESCAPE '\\' AND (camera_model(a.make, a.model) = ? COLLATE NOCASE OR a.model = ? COLLATE NOCASE)",
                values: [pattern, model, model]))
        }
    }

    /// The pixel size, duration and format options.
    private mutating func appendSizeAndFormatConditions(_ options: FetchOptions) throws {
        conditions += SQLCondition.comparisons([
            ("a.pixel_width >= ?", options.minimumPixelWidth),
            ("a.pixel_height >= ?", options.minimumPixelHeight),
            ("a.pixel_width * a.pixel_height >= ?", options.minimumPixelCount),
            ("a.duration >= ?", options.minimumDuration),
            ("a.duration <= ?", options.maximumDuration),
        ])
        if let minimum = options.minimumDuration, let maximum = options.maximumDuration, minimum > maximum {
            throw AssetQueryError.emptyDurationRange(minimum: minimum, maximum: maximum)
        }
        conditions += try Self.descriptionConditions(options)
        if !options.formats.isEmpty {
            let placeholders = Array(repeating: "?", count: options.formats.count).joined(separator: ", ")
            conditions.append(SQLCondition(sql: "a.format IN (\(placeholders))", values: options.formats.map { $0.lowercased() }))
        }
    }

    /// When the options select by kind alone, the filter that says so (nil inside: every
    /// kind); nil when they select by anything else.
    private static func kindOnlyFilter(_ options: FetchOptions) -> MediaFilter?? {
        let typeScope: Bool
        switch options.album {
        case nil: typeScope = true
        case .smart(let album)?: typeScope = album == .recents || album.filter != nil
        default: typeScope = false
        }
        if typeScope && !options.includeAllBurstAssets && options.capturedFrom == nil && options.capturedBefore == nil
            && options.capturedFromLocalTime == nil && options.capturedBeforeLocalTime == nil && options.period == nil && options.onThisDay == nil
            && options.place == nil && options.country == nil && options.placeName == nil && options.make == nil && options.model == nil && options.minimumPixelWidth == nil
            && options.minimumPixelHeight == nil && options.minimumPixelCount == nil && options.minimumDuration == nil
            && options.maximumDuration == nil && options.formats.isEmpty && options.search?.expression == nil
            && !options.filtersDescription {
            var filters: [MediaFilter] = []
            if let filter = options.filter { filters.append(filter) }
            if case .smart(let album)? = options.album, let filter = album.filter { filters.append(filter) }
            // The per-kind totals answer only filters on the columns they carry.
            if filters.allSatisfy(\.readsOnlyKindColumns) {
                return .some(filters.isEmpty ? nil : filters.count == 1 ? filters[0] : .all(of: filters))
            }
        }
        return nil
    }

    /// The cursor `after` names, checked against the order it pages.
    private static func decodeCursor(_ after: String, sort: AssetSort) throws -> AssetCursor {
        let decoded: AssetCursor
        do { decoded = try AssetCursor.decode(after) } catch let error as AssetCursor.DecodingError {
            throw AssetQueryError.invalidCursor(reason: error.reason)
        }
        guard decoded.sort == sort else {
            throw AssetQueryError.cursorSortMismatch(cursor: decoded.sort, requested: sort)
        }
        switch (sort.key, decoded.value) {
        case (.fileName, .text), (.fileSize, .integer), (.albumOrder, .integer),
             (.captureDate, .real), (.modificationDate, .real), (.addedDate, .real), (.duration, .real): break
        case (_, .integer) where sort.key != .fileName: break
        default: throw AssetQueryError.invalidCursor(reason: "its key does not fit the order \(sort)")
        }
    return decoded
    }

    /// Refuses a search naming an album no user album is titled, rather than answering
    /// with nothing.
    ///
    /// - Throws: `SearchQueryError` naming the title and the nearest album titles.
    func checkSearch(db: DatabaseConnection) throws {
        for title in searchAlbumTitles where try db.scalarInt(
            "SELECT count(*) FROM userstate.albums WHERE title = ? COLLATE NOCASE", [title]) == 0 {
            let titles = try db.rows("SELECT title FROM userstate.albums ORDER BY title").compactMap { $0.string("title") }
            var message = "no user album is titled '\(title)'"
            if let near = FilterParser.closest(to: title.lowercased(), in: titles) { message += "; did you mean '\(near)'?" }
            else if titles.isEmpty { message += "; this library has no user albums" }
            else { message += "; see mediaindex albums for the titles" }
            let text = searchText ?? ""
            let column = text.range(of: title).map { text.distance(from: text.startIndex, to: $0.lowerBound) } ?? 0
            throw SearchQueryError(column: column + 1, message: message)
        }
    }

    /// The SQL expression a sort key orders by: a field's as the field table declares it.
    static func sortColumn(_ key: AssetSortKey) -> String {
        if let column = AssetFields.sortColumns[key] { return "a." + column.name }
        switch key {
        case .captureDate, .modificationDate, .addedDate, .duration:
            preconditionFailure("the field table declares the column \(key) sorts on")
        case .fileName: return "a.file_name"
        case .fileSize: return "a.file_size"
        case .albumOrder: return "m.position"
        }
    }

    static func placeCondition(_ place: PlaceFilter) throws -> SQLCondition {
        func box(_ minLat: Double, _ minLon: Double, _ maxLat: Double, _ maxLon: Double) -> SQLCondition {
            if minLon <= maxLon {
                return SQLCondition(sql: "a.latitude BETWEEN ? AND ? AND a.longitude BETWEEN ? AND ?",
                                    values: [minLat, maxLat, minLon, maxLon])
            }
            return SQLCondition(sql: "a.latitude BETWEEN ? AND ? AND (a.longitude >= ? OR a.longitude <= ?)",
                                values: [minLat, maxLat, minLon, maxLon])
        }
        switch place {
        case .boundingBox(let minLat, let minLon, let maxLat, let maxLon):
            guard [minLat, minLon, maxLat, maxLon].allSatisfy(\.isFinite), minLat <= maxLat,
                  (-90...90).contains(minLat), (-90...90).contains(maxLat),
                  (-180...180).contains(minLon), (-180...180).contains(maxLon) else {
                throw AssetQueryError.invalidPlace(place)
            }
            return box(minLat, minLon, maxLat, maxLon)
        case .radius(let lat, let lon, let radius):
            guard lat.isFinite, lon.isFinite, radius.isFinite, (-90...90).contains(lat), (-180...180).contains(lon),
                  radius >= 0 else {
                throw AssetQueryError.invalidPlace(place)
            }
            // A bounding box on the indexed columns first, then the exact great-circle distance.
            let earthRadius = 6_371_008.8
            let latDelta = radius / earthRadius * 180 / .pi
            let minLat = max(-90, lat - latDelta), maxLat = min(90, lat + latDelta)
            var prefilter: SQLCondition
            let cosine = cos(max(abs(minLat), abs(maxLat)) * .pi / 180)
            if maxLat >= 90 || minLat <= -90 || cosine < 1e-9 || latDelta / cosine >= 180 {
                prefilter = SQLCondition(sql: "a.latitude BETWEEN ? AND ?", values: [minLat, maxLat])
            } else {
                let lonDelta = latDelta / cosine
                var minLon = lon - lonDelta, maxLon = lon + lonDelta
                if minLon < -180 { minLon += 360 }
                if maxLon > 180 { maxLon -= 360 }
                prefilter = box(minLat, minLon, maxLat, maxLon)
            }
            prefilter.sql += """
                 AND 2 * ? * asin(min(1, sqrt(pow(sin(radians(a.latitude - ?) / 2), 2)
                    + cos(radians(?)) * cos(radians(a.latitude)) * pow(sin(radians(a.longitude - ?) / 2), 2)))) <= ?
                """
            prefilter.values += [earthRadius, lat, lat, lon, radius]
            return prefilter
        }
    }

    /// WHERE clause and values for the filter conditions (and the cursor when asked).
    func whereClause(includingCursor: Bool, includingHidden: Bool = true) -> (sql: String, values: [DatabaseValueConvertible]) {
        var parts = conditions.map(\.sql)
        if includingHidden && excludesHidden { parts.append(Self.hiddenCondition.sql) }
        var values = conditions.flatMap(\.values)
        if includingCursor, let cursor {
            let column = (sortsAfterReading ? "+" : "") + Self.sortColumn(sort.key)
            parts.append("(\(column), a.id) \(sort.ascending ? ">" : "<") (?, ?)")
            values += [cursor.value, cursor.rowID]
        }
        return (parts.isEmpty ? "" : " WHERE " + parts.joined(separator: " AND "), values)
    }

    /// The page query: assets with their user state and the sort key, one more than the limit.
    func pageSQL() -> (sql: String, values: [DatabaseValueConvertible]) {
        pageSQL(selecting: """
            \(AssetQueries.assetColumns), \(Self.sortColumn(sort.key)) AS sort_key,
                coalesce(s.favorite, 0) AS user_favorite, coalesce(s.hidden, 0) AS user_hidden,
                s.latitude AS user_latitude, s.longitude AS user_longitude
            """, from: from + " LEFT JOIN userstate.asset_user_state s ON s.identifier = a.identifier")
    }

    /// The page's asset ids alone, in the page's order (one more than the limit): the
    /// sort carries an id and a key a row instead of every column, for a plan that sorts
    /// many matches and reads the page's rows after (`SearchPlan`). No condition reads
    /// the user state's join, so it is left out.
    func pageIDsSQL() -> (sql: String, values: [DatabaseValueConvertible]) {
        pageSQL(selecting: "a.id AS row_id", from: from)
    }

    /// A page query selecting `columns` from `source`, in the sort's order, one more than the limit.
    private func pageSQL(selecting columns: String, from source: String) -> (sql: String, values: [DatabaseValueConvertible]) {
        let column = Self.sortColumn(sort.key)
        let direction = sort.ascending ? "ASC" : "DESC"
        let (whereSQL, whereValues) = whereClause(includingCursor: true)
        var sql = """
            SELECT \(columns)
            FROM \(source)\(whereSQL)
            ORDER BY \(sortsAfterReading ? "+" : "")\(column) \(direction), a.id \(direction)
            """
        var values = fromValues + whereValues
        if let limit {
            sql += " LIMIT ?"
            values.append(limit + 1)
        }
        return (sql, values)
    }

    /// The same query, cheaper when the database allows: Recently Added when every asset
    /// was added within the window (just after a first import) is the whole library,
    /// and reading it without the date test uses the capture order and the kind totals.
    func simplified(db: DatabaseConnection) throws -> AssetQuery {
        guard let since = recentlyAddedSince,
              let oldest = try db.row("SELECT min(added_at) AS oldest FROM assets")?.double("oldest"),
              oldest >= since else { return self }
        var copy = self
        copy.conditions.removeAll { $0.sql == "a.added_at >= ?" }
        copy.recentlyAddedSince = nil
        copy.countingIndex = nil
        if copy.kindFilter == nil && copy.conditions.allSatisfy({ $0.sql == "a.is_burst_representative = 1" }) {
            copy.kindFilter = .some(nil)
        }
        return copy
    }

    /// Counts by media type over every matching asset (the cursor is ignored).
    ///
    /// A per-row hidden test would read every row; instead the hidden assets, few and
    /// found through the user state's index, are counted apart and subtracted.
    func counts(db: DatabaseConnection) throws -> AssetCounts {
        var counts = try countsWithHidden(db: db)
        let hidden = try hiddenCounts(db: db)
        counts.images -= hidden.images
        counts.videos -= hidden.videos
        return counts
    }

    /// Counts by media type with hidden assets still in: from the text index's match sets,
    /// the kind totals, or the counting query, whichever answers.
    private func countsWithHidden(db: DatabaseConnection) throws -> AssetCounts {
        let counting: AssetQuery
        switch try SearchPlan.counting(self, db: db) {
        case .counted(let counts): return counts
        case .query(let query): counting = query
        }
        if case .some(let filter) = kindFilter {
            let condition = filter?.sqlCondition(table: "k") ?? .alwaysTrue
            return try AssetCounts(mediaTypeRows: db.rows("""
                SELECT k.media_type, sum(k.count) AS n FROM asset_kinds k WHERE \(condition.sql) GROUP BY k.media_type
                """, condition.values))
        }
        let (sql, values) = counting.countSQL()
        return try AssetCounts(mediaTypeRows: db.rows(sql, values))
    }

    /// The general count query: images and videos over every matching asset, hidden ones
    /// included (`counts` subtracts them), read through `countingIndex` when there is one.
    func countSQL() -> (sql: String, values: [DatabaseValueConvertible]) {
        let (whereSQL, whereValues) = whereClause(includingCursor: false, includingHidden: false)
        var source = from
        if let countingIndex, from == "assets a" { source = "assets a INDEXED BY \(countingIndex)" }
        return ("SELECT a.media_type, count(*) AS n FROM \(source)\(whereSQL) GROUP BY a.media_type", fromValues + whereValues)
    }

    /// How many of the matching assets are hidden (none when hidden ones are included).
    func hiddenCounts(db: DatabaseConnection) throws -> AssetCounts {
        guard excludesHidden else { return AssetCounts(images: 0, videos: 0) }
        let (whereSQL, whereValues) = whereClause(includingCursor: false, includingHidden: false)
        let hiddenWhere = whereSQL.isEmpty ? " WHERE" : whereSQL + " AND"
        let sql = "SELECT a.media_type, count(*) AS n FROM userstate.asset_user_state h CROSS JOIN \(from)\(hiddenWhere)"
            + " h.hidden = 1 AND a.identifier = h.identifier GROUP BY a.media_type"
        return try AssetCounts(mediaTypeRows: db.rows(sql, fromValues + whereValues))
    }

    /// The first matching asset's identifier and capture key in capture order.
    func firstByCapture(ascending: Bool, datedOnly: Bool, db: DatabaseConnection) throws
        -> (id: String, capture: Double?, localTime: Double?)? {
        let (whereSQL, values) = whereClause(includingCursor: false)
        var sql = "SELECT a.identifier, a.capture_sort, a.local_time FROM \(from)\(whereSQL)"
        if datedOnly { sql += (whereSQL.isEmpty ? " WHERE" : " AND") + " a.capture_sort > -1e300" }
        let direction = ascending ? "ASC" : "DESC"
        sql += " ORDER BY a.capture_sort \(direction), a.id \(direction) LIMIT 1"
        guard let row = try db.row(sql, fromValues + values), let id = row.string("identifier") else { return nil }
        return (id, row.double("capture_sort"), row.double("local_time"))
    }
}

extension AssetCounts {
    /// Counts summed from rows of `media_type` and `n` (a count grouped by media type).
    init(mediaTypeRows rows: [Row]) {
        self.init(images: 0, videos: 0)
        for row in rows {
            if row.string("media_type") == "video" { videos += row.int("n") ?? 0 } else { images += row.int("n") ?? 0 }
        }
    }
}
