import Foundation
import MediaIndex
import MediaIndexInterface

extension MediaIndexAPI {
    /// `GET /v1/status`: the library, its roots with the watcher's state, counts, the last
    /// index run and whether this server is read-only.
    func status(_ request: HTTPRequest) throws -> HTTPResponse {
        _ = try QueryParameters(request.query, known: [])
        let statistics = try library.blocking.statistics()
        let roots = try library.blocking.roots()
        let watched = Dictionary(configuration.watcherState().map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        let notWatched = configuration.isReadOnly
            ? "this server does not watch (another process watches the library, or --no-watch was given)"
            : "not watched yet"
        let rootsJSON = JSON.array(roots.map { root in
            let state = watched[root.path]
            return .object([
                ("path", .string(root.path.displayString)),
                ("watcher", .string(state?.watcher ?? "none")),
                ("reason", state.map { JSON($0.reason) } ?? .string(notWatched)),
                ("assets", .int(root.assetCount)), ("errors", .int(root.errorCount)),
                ("lastIndexedDate", root.lastIndexedDate.map { .string(JSONShapes.isoUTC($0)) } ?? .null),
            ])
        })
        return Self.jsonResponse(.object([
            ("library", .string(library.location.directory)),
            ("readOnly", .bool(configuration.isReadOnly)),
            ("roots", rootsJSON),
            ("counts", .object([("assets", .int(statistics.assets)), ("images", .int(statistics.images)),
                                ("videos", .int(statistics.videos)), ("files", .int(statistics.files)),
                                ("errors", .int(statistics.errors))])),
            ("lastRun", statistics.lastRun.map(JSONShapes.summary) ?? .null),
            ("changeToken", .int(Int(waiter.currentToken.rawValue))),
        ]))
    }
}
