import Foundation
import MediaIndex
import MediaIndexInterface

/// One root as `/v1/status` reports it: how the watcher learns of its changes.
public struct RootWatchState: Sendable, Equatable {
    /// The root folder.
    public var path: PathBytes
    /// `inotify`, `polling`, or `none` when this server does not watch.
    public var watcher: String
    /// Why the root is polled or not watched; nil under inotify.
    public var reason: String?

    /// A root's state from its parts.
    public init(path: PathBytes, watcher: String, reason: String?) {
        self.path = path
        self.watcher = watcher
        self.reason = reason
    }
}

/// The MediaIndex HTTP API and the web picker: thin routes that decode their parameters
/// into the library's option types, call the library and encode with the CLI's JSON
/// shapes. Refusals (Host, token, unknown route or parameter) come before any library call.
public final class MediaIndexAPI: HTTPHandler, @unchecked Sendable {
    // @unchecked: the configuration is only touched under `configurationLock`; the
    // waiter and monitor are thread-safe; the closure is @Sendable.

    /// What the API serves and how.
    public struct Configuration: Sendable {
        /// The library, with the thumbnail cache it was opened with; opened read-only
        /// when `isReadOnly`.
        public var library: MediaLibrary
        /// Host, token and CORS rules.
        public var policy: AccessPolicy
        /// True when another process watches the library (`--no-watch`): writes are refused.
        public var isReadOnly: Bool
        /// The watcher's state per root, read for each `/v1/status`.
        public var watcherState: @Sendable () -> [RootWatchState]
        /// Seconds between keep-alive comments on an idle event stream.
        public var eventKeepAliveSeconds: Double = 15
        /// The one origin (`https://app.example.com`) that may frame the web picker and
        /// receives its selection by `postMessage`; nil: none but the server's own.
        public var pickerOrigin: String?
        /// The one-shot hand-off of `mediaindex pick` (`POST /v1/pick/{secret}`); nil: none.
        public var pickSession: PickSession?

        /// A configuration from its parts.
        public init(library: MediaLibrary, policy: AccessPolicy, isReadOnly: Bool,
                    watcherState: @escaping @Sendable () -> [RootWatchState]) {
            self.library = library
            self.policy = policy
            self.isReadOnly = isReadOnly
            self.watcherState = watcherState
        }
    }

    /// The longest `/v1/assets` page.
    public static let maximumLimit = 1000
    /// The longest long poll.
    public static let maximumWaitSeconds = 60.0

    private let configurationLock = NSLock()
    private var currentConfiguration: Configuration
    /// The configuration, with the policy's port the one actually bound.
    var configuration: Configuration {
        configurationLock.lock()
        defer { configurationLock.unlock() }
        return currentConfiguration
    }
    var library: MediaLibrary { configuration.library }
    let waiter: CommitWaiter
    private let monitor: CommitMonitor
    /// Slots for long polls and event streams: fewer than the server's connections, and
    /// a client's share fewer than its connections.
    let livePool = LiveRequestPool(capacity: 64, perClient: 16)
    /// The JSON of reads (`/v1/assets`, `/v1/assets/{id}`, `/v1/albums`) until the next commit.
    let answers = AnswerCache<[UInt8]>(maximumEntries: 512, maximumCost: 64 << 20)
    /// Where served thumbnails are in the cache, until the next commit or a minute
    /// (the cache marks a file used at most once a minute; asking it again does).
    let thumbnailLocations = AnswerCache<ThumbnailLocation>(maximumEntries: 8192, maximumCost: 8 << 20)
    /// The answers `warmPickerFirstScreen` is making, which their requests wait for.
    let inMaking = AnswersInMaking()
    /// How long an answer that depends on the clock as well is kept (Recently Added).
    static let clockBoundLifetime = Duration.seconds(10)
    /// How long the answer for `options` is kept: clock-bound for Recently Added and On
    /// This Day (today's date moves), nil (until the next commit) otherwise.
    static func lifetime(of options: FetchOptions) -> Duration? {
        switch options.album {
        case .smart(.recentlyAdded)?, .smart(.onThisDay)?: return clockBoundLifetime
        default:
            let searchesOnThisDay = options.search?.text.lowercased().contains("on:") == true
            return options.onThisDay == nil && !searchesOnThisDay ? nil : clockBoundLifetime
        }
    }
    /// How long a thumbnail's place is remembered without asking the cache.
    static let thumbnailLocationLifetime = Duration.seconds(60)

    /// The API over `configuration.library`; starts watching for commits at once.
    ///
    /// - Throws: `LibraryError` when the change feed cannot be read.
    public init(configuration: Configuration) throws {
        currentConfiguration = configuration
        waiter = CommitWaiter(currentToken: try configuration.library.blocking.currentChangeToken())
        monitor = CommitMonitor(library: configuration.library, waiter: waiter)
        monitor.start()
    }

    /// Records the address the server really bound (the kernel's port for port 0), which
    /// the Host check compares against.
    public func serverDidBind(to address: ListenAddress) {
        configurationLock.lock()
        currentConfiguration.policy.address = address
        configurationLock.unlock()
    }

    public func serverWillStop() {
        monitor.stop()
    }

    public func bodyTooLarge() -> HTTPResponse {
        Self.errorResponse(APIError(status: 413, code: "bodyTooLarge",
                                    message: "the request body is larger than \(HTTPServer.maximumBodyBytes) bytes (1 MB)"))
    }

    public func burstEnded() {
        library.blocking.releaseIdleMemory()
    }

    public func requestRefused(_ refusal: HTTPRefusal) -> HTTPResponse {
        Self.errorResponse(APIError(status: refusal.status, code: refusal.code, message: refusal.message))
    }

    // MARK: Dispatch

    /// What a path names, and the methods it takes.
    enum Route: Equatable {
        case picker, pickerFile(String)
        case assets, search, searchSuggestions, asset(String), thumbnail(String), resource(String, String), favorite(String), hidden(String)
        case description, captureTime
        case albums, albumAssets(String)
        case changes, events, status, timeline
        case duplicates, resolveDuplicates(String)
        case pick(String)

        var methods: [String] {
            switch self {
            case .favorite, .hidden: return ["PUT", "DELETE"]
            case .description, .captureTime, .resolveDuplicates, .pick: return ["POST"]
            case .albumAssets: return ["POST", "DELETE"]
            case .albums: return ["GET", "HEAD", "POST"]
            default: return ["GET", "HEAD"]
            }
        }

        init?(path: String) {
            let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
            switch parts.count {
            case 1 where parts[0].isEmpty: self = .picker
            case 1 where EmbeddedWebPicker.file(named: parts[0]) != nil: self = .pickerFile(parts[0])
            case 2 where parts[0] == "v1":
                switch parts[1] {
                case "assets": self = .assets
                case "search": self = .search
                case "albums": self = .albums
                case "changes": self = .changes
                case "events": self = .events
                case "status": self = .status
                case "duplicates": self = .duplicates
                case "timeline": self = .timeline
                default: return nil
                }
            case 3 where parts[0] == "v1" && parts[1] == "assets" && parts[2] == "description": self = .description
            case 3 where parts[0] == "v1" && parts[1] == "assets" && parts[2] == "capture-time": self = .captureTime
            case 3 where parts[0] == "v1" && parts[1] == "search" && parts[2] == "suggestions": self = .searchSuggestions
            case 3 where parts[0] == "v1" && parts[1] == "pick" && !parts[2].isEmpty: self = .pick(parts[2])
            case 3 where parts[0] == "v1" && parts[1] == "assets" && !parts[2].isEmpty: self = .asset(parts[2])
            case 4 where parts[0] == "v1" && parts[1] == "assets" && !parts[2].isEmpty:
                switch parts[3] {
                case "thumbnail": self = .thumbnail(parts[2])
                case "favorite": self = .favorite(parts[2])
                case "hidden": self = .hidden(parts[2])
                default: return nil
                }
            case 4 where parts[0] == "v1" && parts[1] == "duplicates" && !parts[2].isEmpty && parts[3] == "resolve":
                self = .resolveDuplicates(parts[2])
            case 4 where parts[0] == "v1" && parts[1] == "albums" && !parts[2].isEmpty && parts[3] == "assets":
                self = .albumAssets(parts[2])
            case 5 where parts[0] == "v1" && parts[1] == "assets" && !parts[2].isEmpty && parts[3] == "resources"
                && !parts[4].isEmpty:
                self = .resource(parts[2], parts[4])
            default: return nil
            }
        }
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        let policy = configuration.policy
        var response: HTTPResponse
        if let refusal = policy.checkHost(request) {
            response = Self.errorResponse(APIError(status: refusal.status, code: refusal.code, message: refusal.message))
        } else if request.method == "OPTIONS" && policy.allowsPreflight(request) {
            response = HTTPResponse(status: 204, headers: [
                ("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, DELETE"),
                ("Access-Control-Allow-Headers", "Authorization, Content-Type, X-MediaIndex, If-None-Match, Range, Last-Event-ID"),
                ("Access-Control-Max-Age", "600"),
            ])
        } else {
            do {
                response = try dispatch(request)
            } catch {
                response = Self.errorResponse(APIError.from(error))
            }
        }
        for header in policy.corsHeaders(for: request) { response.addHeader(header.name, header.value) }
        response.addHeader("X-Content-Type-Options", "nosniff")
        response.addHeader("Referrer-Policy", "no-referrer")
        return response
    }

    private func dispatch(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let route = Route(path: request.path) else {
            throw APIError.notFound("there is no route \(request.path); the API's routes start with /v1/ (see /v1/status)")
        }
        guard route.methods.contains(request.method) else {
            var error = APIError(status: 405, code: "methodNotAllowed",
                                 message: "\(request.path) does not take \(request.method); it takes " + route.methods.joined(separator: ", "))
            error.headers = [("Allow", route.methods.joined(separator: ", "))]
            throw error
        }
        // The pick route's secret is its credential, and it writes nothing to the library.
        if case .pick(let secret) = route { return try pick(secret, request) }
        let isWrite = !["GET", "HEAD"].contains(request.method)
        // `/?token=` is how a browser proves it holds the token: the picker route checks it.
        let presentsToken = route == .picker && request.query.contains { $0.name == "token" }
        if !presentsToken, let refusal = configuration.policy.authorize(request, isWrite: isWrite) {
            throw APIError(status: refusal.status, code: refusal.code, message: refusal.message)
        }
        if isWrite && configuration.isReadOnly {
            var error = APIError(status: 405, code: "readOnly",
                                 message: "this server is read-only (another process watches the library, or --no-watch was given)")
            error.headers = [("Allow", "GET, HEAD")]
            throw error
        }
        switch route {
        case .picker: return try picker(request)
        case .pickerFile(let name): return try pickerFile(name, request)
        case .assets: return try assets(request)
        case .search: return try assets(request, searchRequired: true)
        case .searchSuggestions: return try searchSuggestions(request)
        case .asset(let id): return try asset(id, request)
        case .thumbnail(let id): return try thumbnail(id, request)
        case .resource(let id, let role): return try resource(id, role: role, request)
        case .favorite(let id): return try setFlag(favorite: true, id, request)
        case .description: return try setDescription(request)
        case .captureTime: return try setCaptureTime(request)
        case .hidden(let id): return try setFlag(favorite: false, id, request)
        case .albums: return request.method == "POST" ? try createAlbum(request) : try albums(request)
        case .albumAssets(let id): return try albumAssets(id, request)
        case .changes: return try changes(request)
        case .events: return try events(request)
        case .status: return try status(request)
        case .duplicates: return try duplicates(request)
        case .resolveDuplicates(let group): return try resolveDuplicates(group, request)
        case .timeline: return try timeline(request)
        case .pick(let secret): return try pick(secret, request)
        }
    }

    // MARK: Encoding

    /// A JSON document as the CLI prints it (`prettyText` and a newline).
    static func jsonResponse(_ json: JSON, status: Int = 200) -> HTTPResponse {
        jsonResponse(body: encodedJSON(json), status: status)
    }

    /// A JSON response of already encoded bytes.
    static func jsonResponse(body: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8"),
                                               ("Cache-Control", "no-store")],
                     body: .bytes(body))
    }

    /// `json` as the CLI prints it, a newline after.
    static func encodedJSON(_ json: JSON) -> [UInt8] {
        var body = json.prettyUTF8
        body.append(UInt8(ascii: "\n"))
        return body
    }

    /// A read's JSON, kept in `answers` for `key` under `version` (read before the answer
    /// was computed) and, when it also moves with the clock, for at most `lifetime`.
    func cachedJSONResponse(_ json: JSON, key: String, version: LibraryDataVersion,
                            lifetime: Duration? = nil) -> HTTPResponse {
        let body = Self.encodedJSON(json)
        answers.store(body, for: key, version: version, cost: body.count + key.utf8.count, lifetime: lifetime)
        return Self.jsonResponse(body: body)
    }

    static func errorResponse(_ error: APIError) -> HTTPResponse {
        var response = jsonResponse(error.json, status: error.status)
        for header in error.headers { response.addHeader(header.name, header.value) }
        return response
    }
}
