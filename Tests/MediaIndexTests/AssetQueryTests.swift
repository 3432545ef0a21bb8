import Foundation
import Testing
@testable import MediaIndex

/// A library whose rows are written directly, to pin down each query option.
struct SyntheticLibrary {
    let folder = TemporaryFolder()
    let library: MediaLibrary
    var location: LibraryLocation { LibraryLocation(directory: folder.file("lib")) }

    struct Row {
        var id: String
        var type = "image"
        var subtypes: MediaSubtypes = []
        var time: Double? = nil
        var width = 4000, height = 3000
        var duration: Double? = nil
        var lat: Double? = nil, lon: Double? = nil
        var make: String? = nil, model: String? = nil
        var burst: String? = nil, representative = true
        var path: String
        var size = 1000
        var format = "jpeg"
        var added: Double = 1_700_000_000
        var modified: Double = 1_700_000_000
    }

    init() throws {
        library = try MediaLibrary(location: LibraryLocation(directory: folder.file("lib")))
        try library.requireWriter().write { db in
            try db.execute("INSERT INTO roots (id, path, added_at) VALUES (1, ?, 0)", [Array("/photos".utf8)])
        }
    }

    func insert(_ rows: [Row]) throws {
        try library.requireWriter().transaction { db in
            for r in rows {
                try db.execute("""
                    INSERT INTO assets (identifier, media_type, subtypes, creation_timestamp, pixel_width, pixel_height,
                        duration, latitude, longitude, make, model, burst_identifier, is_burst_representative,
                        fingerprint, added_at, modified_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [r.id, r.type, r.subtypes.rawValue, r.time, r.width, r.height, r.duration, r.lat, r.lon,
                          r.make, r.model, r.burst, r.representative, "fp-" + r.id, r.added, r.modified])
                let assetID = db.lastInsertedRowID
                try db.execute("""
                    INSERT INTO files (root_id, path, size, mtime_ns, inode, status, format, asset_id, role, indexed_at)
                    VALUES (1, ?, ?, 0, 0, 'media', ?, ?, ?, 0)
                    """, [Array(r.path.utf8), r.size, r.format, assetID, r.type == "video" ? "video" : "photo"])
            }
        }
    }

    func delete(_ identifier: String) throws {
        try library.requireWriter().transaction { db in
            try db.execute("DELETE FROM files WHERE asset_id = (SELECT id FROM assets WHERE identifier = ?)", [identifier])
            try db.execute("DELETE FROM assets WHERE identifier = ?", [identifier])
        }
    }

    func ids(_ options: FetchOptions) throws -> [String] {
        try library.blocking.fetchAssets(options).assets.map(\.id.rawValue)
    }
}

/// Ten assets with one distinguishing fact each.
private func fixture() throws -> SyntheticLibrary {
    let lib = try SyntheticLibrary()
    typealias R = SyntheticLibrary.Row
    try lib.insert([
        R(id: "plain", time: 100, lat: 48.8584, lon: 2.2945, make: "Canon", model: "EOS 40D",
          path: "/photos/2020/b.jpg", size: 500, added: 10, modified: 50),
        R(id: "live", subtypes: .livePhoto, time: 200, lat: 48.8606, lon: 2.3376, make: "Apple", model: "iPhone 12",
          path: "/photos/2020/a.heic", size: 3000, format: "heic", added: 20, modified: 40),
        R(id: "shot", subtypes: .screenshot, time: 300, width: 1170, height: 2532, path: "/photos/shots/c.png",
          size: 200, format: "png", added: 30, modified: 30),
        R(id: "movie", type: "video", time: 400, width: 1920, height: 1080, duration: 12.5, lat: 51.5007, lon: -0.1246,
          path: "/photos/2021/d.mov", size: 9000, format: "mov", added: 40, modified: 20),
        R(id: "slomo", type: "video", subtypes: .slomoVideo, time: 500, width: 1280, height: 720, duration: 3,
          path: "/photos/2021/e.mov", size: 4000, format: "mov", added: 50, modified: 10),
        R(id: "pano", subtypes: .panorama, time: 600, width: 12000, height: 3000, path: "/photos/2021/f.jpg",
          size: 8000, added: 60, modified: 60),
        R(id: "burst1", time: 700, burst: "B", representative: true, path: "/photos/burst/g1.jpg", added: 70, modified: 70),
        R(id: "burst2", time: 701, burst: "B", representative: false, path: "/photos/burst/g2.jpg", added: 71, modified: 71),
        R(id: "undated", time: nil, path: "/photos/old/h.jpg", size: 100, added: 80, modified: 80),
        R(id: "raw", subtypes: .raw, time: 800, make: "Nikon", path: "/photos/2021/i.nef", size: 20000, format: "nef",
          added: 90, modified: 90),
    ])
    return lib
}

@Suite("Asset queries")
struct AssetQueryTests {
    static let filterCases: [(String, [String])] = [
        ("images", ["raw", "burst1", "pano", "shot", "live", "plain", "undated"]),
        ("videos", ["slomo", "movie"]),
        ("livePhotos", ["live"]),
        ("screenshots", ["shot"]),
        ("images & !screenshots & !raw", ["burst1", "pano", "live", "plain", "undated"]),
        ("any(slomoVideos, panoramas)", ["pano", "slomo"]),
        ("bursts", ["burst1"]),
        ("raw", ["raw"]),
        ("not(any(images, videos))", []),
        ("any(images, videos, livePhotos)", ["raw", "burst1", "pano", "slomo", "movie", "shot", "live", "plain", "undated"]),
    ]

    @Test("each filter selects exactly its assets, newest first", arguments: filterCases)
    func filters(_ expression: String, _ expected: [String]) throws {
        let lib = try fixture()
        var options = FetchOptions()
        options.filter = try MediaFilter(parsing: expression)
        #expect(try lib.ids(options) == expected)
    }

    @Test("each option narrows as documented")
    func options() throws {
        let lib = try fixture()
        func ids(_ change: (inout FetchOptions) -> Void) throws -> Set<String> {
            var options = FetchOptions()
            change(&options)
            return Set(try lib.ids(options))
        }
        #expect(try ids { $0.capturedFrom = Date(timeIntervalSince1970: 500); $0.capturedBefore = Date(timeIntervalSince1970: 700) }
                == ["slomo", "pano"])
        #expect(try ids { $0.capturedBefore = Date(timeIntervalSince1970: 250) } == ["plain", "live"])
        // The Eiffel tower and the Louvre are 3.2 km apart.
        #expect(try ids { $0.place = .radius(latitude: 48.8584, longitude: 2.2945, radiusMeters: 1000) } == ["plain"])
        #expect(try ids { $0.place = .radius(latitude: 48.8584, longitude: 2.2945, radiusMeters: 5000) } == ["plain", "live"])
        #expect(try ids { $0.place = .boundingBox(minLatitude: 51, minLongitude: -1, maxLatitude: 52, maxLongitude: 0) } == ["movie"])
        #expect(try ids { $0.make = "canon" } == ["plain"])
        #expect(try ids { $0.model = "IPHONE 12" } == ["live"])
        #expect(try ids { $0.minimumPixelWidth = 5000 } == ["pano"])
        #expect(try ids { $0.minimumPixelCount = 20_000_000 } == ["pano"])
        #expect(try ids { $0.minimumDuration = 5 } == ["movie"])
        #expect(try ids { $0.maximumDuration = 5 } == ["slomo"])
        #expect(try ids { $0.formats = ["MOV", "png"] } == ["movie", "slomo", "shot"])
        #expect(try ids { $0.includeAllBurstAssets = true }.contains("burst2"))
        #expect(try !ids { _ in }.contains("burst2"))
        #expect(try ids { $0.album = .folder(PathBytes("/photos/2020")) } == ["plain", "live"])
    }

    static let sortCases: [(AssetSort, [String])] = [
        (AssetSort(.captureDate), ["raw", "burst1", "pano", "slomo", "movie", "shot", "live", "plain", "undated"]),
        (AssetSort(.captureDate, ascending: true), ["undated", "plain", "live", "shot", "movie", "slomo", "pano", "burst1", "raw"]),
        (AssetSort(.modificationDate), ["raw", "undated", "burst1", "pano", "plain", "live", "shot", "movie", "slomo"]),
        (AssetSort(.addedDate), ["raw", "undated", "burst1", "pano", "slomo", "movie", "shot", "live", "plain"]),
        (AssetSort(.fileName), ["live", "plain", "shot", "movie", "slomo", "pano", "burst1", "undated", "raw"]),
        (AssetSort(.duration), ["movie", "slomo", "raw", "undated", "burst1", "pano", "shot", "live", "plain"]),
        (AssetSort(.fileSize), ["raw", "movie", "pano", "slomo", "live", "burst1", "plain", "shot", "undated"]),
    ]

    @Test("each sort orders with a unique tiebreak, and paging by 2 gives the same order", arguments: sortCases)
    func sorts(_ sort: AssetSort, _ expected: [String]) throws {
        let lib = try fixture()
        var options = FetchOptions()
        options.sort = sort
        #expect(try lib.ids(options) == expected)
        options.limit = 2
        var paged: [String] = []
        for _ in 0..<20 {
            let page = try lib.library.blocking.fetchAssets(options)
            paged += page.assets.map(\.id.rawValue)
            guard let next = page.nextCursor else { break }
            options.after = next
        }
        #expect(paged == expected)
    }

    @Test("a damaged or foreign cursor is a clear error, never a crash")
    func badCursors() throws {
        let lib = try fixture()
        var options = FetchOptions()
        options.limit = 2
        let cursor = try #require(try lib.library.blocking.fetchAssets(options).nextCursor)
        for bad in ["", "!!!", "AAAA", Base64URL.encode(Array("1|captureDate|d|rzz|1".utf8)),
                    Base64URL.encode(Array("2|captureDate|d|r0|1".utf8)), String(cursor.dropLast(3)),
                    String(repeating: "A", count: 5000)] {
            options.after = bad
            #expect(throws: AssetQueryError.self) { try lib.library.blocking.fetchAssets(options) }
        }
        options.after = cursor
        options.sort = AssetSort(.fileName)
        #expect(throws: AssetQueryError.self) { try lib.library.blocking.fetchAssets(options) }
    }

    @Test("paging stays exact while another connection inserts and deletes between pages")
    func pagingUnderConcurrentWrites() throws {
        let lib = try SyntheticLibrary()
        let stable = (0..<300).map { i in
            SyntheticLibrary.Row(id: "s\(i)", time: Double(i % 50) * 10, path: "/photos/s/\(i).jpg", size: i)
        }
        try lib.insert(stable)
        // The reader pages through its own connection; the writer is another one.
        var options = FetchOptions()
        options.limit = 25
        var seen: [String] = []
        var page = 0
        while true {
            let result = try lib.library.blocking.fetchAssets(options)
            seen += result.assets.map(\.id.rawValue)
            page += 1
            // Between pages: new assets at every position in the order, and some deleted ones.
            try lib.insert((0..<10).map { j in
                SyntheticLibrary.Row(id: "n\(page)-\(j)", time: Double(j * 50), path: "/photos/n/\(page)-\(j).jpg")
            })
            if page % 3 == 0 { try lib.delete("n\(page - 1)-3") }
            guard let next = result.nextCursor else { break }
            options.after = next
        }
        let stableSeen = seen.filter { $0.hasPrefix("s") }
        #expect(Set(seen).count == seen.count, "a row came twice")
        #expect(Set(stableSeen) == Set(stable.map(\.id)), "a row present throughout was skipped")
    }

    @Test("counts by media type without fetching, honouring filters and hidden assets")
    func counts() async throws {
        let lib = try fixture()
        #expect(try lib.library.blocking.countAssets(FetchOptions()) == AssetCounts(images: 7, videos: 2))
        var options = FetchOptions()
        options.filter = .not(.screenshots)
        #expect(try lib.library.blocking.countAssets(options) == AssetCounts(images: 6, videos: 2))
        try await lib.library.setHidden(true, for: ["movie"])
        #expect(try lib.library.blocking.countAssets(FetchOptions()) == AssetCounts(images: 7, videos: 1))
        options = FetchOptions()
        options.includeHidden = true
        #expect(try lib.library.blocking.countAssets(options) == AssetCounts(images: 7, videos: 2))
        let hidden = try #require(try await lib.library.asset(id: "movie"))
        #expect(hidden.isHidden)
    }

    @Test("the main query shapes use an index, never a full scan with a sort")
    func queryPlans() throws {
        let lib = try fixture()
        func plan(_ options: FetchOptions) throws -> String {
            let query = try AssetQuery(options)
            let (sql, values) = query.pageSQL()
            return try lib.library.read { db in
                try db.rows("EXPLAIN QUERY PLAN " + sql, values).compactMap { $0.string("detail") }.joined(separator: "; ")
            }
        }
        var options = FetchOptions()
        options.limit = 100
        let first = try plan(options)
        #expect(first.contains("USING INDEX assets_by_capture") && !first.contains("TEMP B-TREE"), "\(first)")
        options.after = AssetCursor(sort: .newestFirst, value: .real(500), rowID: 3).encoded
        let deep = try plan(options)
        #expect(deep.contains("assets_by_capture (capture_sort<?)") || deep.contains("assets_by_capture (capture_sort<"), "\(deep)")
        options.filter = .livePhotos
        let live = try plan(options)
        #expect(live.contains("assets_live_by_capture"), "\(live)")
        options.filter = .videos
        let videos = try plan(options)
        #expect(videos.contains("assets_by_type_capture"), "\(videos)")
        options = FetchOptions()
        options.sort = AssetSort(.fileName)
        options.limit = 100
        let names = try plan(options)
        #expect(names.contains("assets_by_file_name") && !names.contains("TEMP B-TREE"), "\(names)")
        print("plans:\n  first: \(first)\n  deep: \(deep)\n  live: \(live)\n  videos: \(videos)\n  names: \(names)")
    }

    @Test("the album list counts Places and On This Day from their indexes, not from every asset (issue 30)")
    func albumCountPlans() throws {
        let lib = try fixture()
        func countPlan(_ album: AlbumScope) throws -> String {
            var options = FetchOptions()
            options.album = album
            let (sql, values) = try AssetQuery(options).countSQL()
            return try lib.library.read { db in
                try db.rows("EXPLAIN QUERY PLAN " + sql, values).compactMap { $0.string("detail") }.joined(separator: "; ")
            }
        }
        for place in [PlaceAlbum.all, PlaceAlbum(countryCode: "JP"), PlaceAlbum(countryCode: "JP", regionCode: "40"),
                      PlaceAlbum(countryCode: "JP", regionCode: "40", geonameId: 1850147)] {
            let plan = try countPlan(.place(place))
            #expect(plan.contains("COVERING INDEX assets_by_place"), "\(place): \(plan)")
        }
        let onThisDay = try countPlan(.smart(.onThisDay))
        #expect(onThisDay.contains("assets_by_month_day (<expr>=?"), "\(onThisDay)")
    }
}
