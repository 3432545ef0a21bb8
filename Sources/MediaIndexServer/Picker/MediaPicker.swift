import ChildProcesses
import Foundation
import MediaIndex
import MediaIndexInterface

/// PhotosPicker for a Swift program: the web picker opened in the user's browser on a
/// one-shot loopback address, waiting for Done or Cancel. `mediaindex pick` is built on it.
///
/// ```swift
/// var configuration = MediaPicker.Configuration(library: library)
/// configuration.filter = .images
/// configuration.selectionLimit = 3
/// configuration.selection = .ordered
/// let picked = try await MediaPicker.pick(configuration: configuration)
/// for item in picked { print(item.id, item.uniformType ?? "", item.pixelWidth ?? 0) }
/// ```
public enum MediaPicker {
    /// What the picker offers and how it hands the selection over, in the names of
    /// `PHPickerConfiguration`.
    public struct Configuration: Sendable {
        /// How the user selects (`PHPickerConfiguration.Selection`).
        public enum Selection: String, Sendable, CaseIterable {
            /// Selected items are marked; the hand-off is still in selection order.
            case `default`
            /// Selected items carry their number in the selection.
            case ordered
        }

        /// Which file the app prefers (`PHPickerConfiguration.AssetRepresentationMode`);
        /// it chooses `PickedItem.preferredURL` among the item's URLs.
        public enum AssetRepresentationMode: String, Sendable, CaseIterable {
            /// The original for JPEG, PNG and GIF stills; the compatible rendition otherwise
            /// (a video already H.264 in MP4 is served as it is there).
            case automatic
            /// The asset as it is (with its edit): never converted.
            case current
            /// Always the compatible rendition: a JPEG, or an H.264/AAC MP4.
            case compatible
        }

        /// What the picker may give beyond PhotosPicker's fields.
        public enum Inclusion: String, Sendable, CaseIterable {
            /// The resources' file paths.
            case path
            /// The GPS position.
            case location
        }

        /// The library to pick from (`PHPickerConfiguration(photoLibrary:)`).
        public var library: MediaLibrary
        /// The kinds of assets offered; nil offers all (`PHPickerFilter`).
        public var filter: MediaFilter?
        /// How many items may be picked; 0 is any number, 1 single selection (the default, as PhotosPicker's).
        public var selectionLimit: Int = 1
        /// How selected items are shown.
        public var selection: Selection = .default
        /// Which URL `preferredURL` names.
        public var preferredAssetRepresentationMode: AssetRepresentationMode = .automatic
        /// Assets selected when the picker opens.
        public var preselectedAssetIdentifiers: [String] = []
        /// Paths and GPS positions, left out unless asked for.
        public var include: Set<Inclusion> = []

        /// A configuration that offers every asset of `library`, one at a time.
        public init(library: MediaLibrary) {
            self.library = library
        }
    }

    /// How the picker's page is shown to the user.
    public struct Presentation: Sendable {
        let open: @Sendable (URL) async throws -> Void

        /// Opens the page with `xdg-open` in the user's browser.
        public static let browser = Presentation { url in
            guard openInBrowser(url.absoluteString) else { throw MediaPickerError.cannotOpenBrowser(url) }
        }

        /// Hands the page's address to `open` (to show it in a web view, print it, or post a
        /// selection from a test); the picker then waits for Done or Cancel at that address.
        public static func custom(_ open: @escaping @Sendable (URL) async throws -> Void) -> Presentation {
            Presentation(open: open)
        }
    }

    /// Shows the picker and returns what the user picked, in selection order; an empty
    /// array when the user cancelled (as PhotosPicker's).
    ///
    /// The items' URLs name a server that stops when this returns: fetch through the library
    /// by `id`, or from a `mediaindex serve` of the same library at that address.
    ///
    /// - Throws: `MediaPickerError` when the page cannot be shown or its message read,
    ///   `HTTPServerError` when no loopback port can be bound.
    public static func pick(configuration: Configuration, presentation: Presentation = .browser) async throws -> [PickedItem] {
        try await run(configuration: configuration, presentation: presentation) ?? []
    }

    /// `pick`, with Cancel as nil: `mediaindex pick` exits 1 on it.
    package static func run(configuration: Configuration, presentation: Presentation) async throws -> [PickedItem]? {
        let session = PickSession()
        let policy = AccessPolicy(address: ListenAddress(host: "127.0.0.1", port: 0, isIPv6: false), token: ServeToken.random())
        var api = MediaIndexAPI.Configuration(library: configuration.library, policy: policy, isReadOnly: true,
                                              watcherState: { [] })
        api.pickSession = session
        let server = try MediaIndexServer(configuration: api)
        defer { server.stop() }
        server.api.warmPickerFirstScreen()
        try await presentation.open(pageAddress(of: configuration, server: server.address, secret: session.secret))
        let outcome = await session.outcome()
        // The page's POST is answered after the outcome is taken; `stop` closes open
        // connections, so give that answer a moment to go out.
        try? await Task.sleep(for: .milliseconds(300))
        guard case .selection(let body) = outcome else { return nil }
        return try PickedItem.items(from: body).map { item in
            var item = item
            item.preferredURL = item.url(for: configuration.preferredAssetRepresentationMode)
            if !configuration.include.contains(.path) { item.resources = nil }
            if !configuration.include.contains(.location) { item.location = nil }
            return item
        }
    }

    /// The picker's one-shot address: `/?pick=SECRET` with the limit, filter, selection,
    /// preselection and inclusions.
    static func pageAddress(of configuration: Configuration, server: ListenAddress, secret: String) -> URL {
        var items = [URLQueryItem(name: "pick", value: secret)]
        if configuration.selectionLimit > 0 { items.append(URLQueryItem(name: "limit", value: String(configuration.selectionLimit))) }
        if let filter = configuration.filter { items.append(URLQueryItem(name: "filter", value: filter.description)) }
        items.append(URLQueryItem(name: "selection", value: configuration.selection.rawValue))
        if !configuration.preselectedAssetIdentifiers.isEmpty {
            items.append(URLQueryItem(name: "preselected", value: configuration.preselectedAssetIdentifiers.joined(separator: ",")))
        }
        let include = Configuration.Inclusion.allCases.filter(configuration.include.contains).map(\.rawValue)
        if !include.isEmpty { items.append(URLQueryItem(name: "include", value: include.joined(separator: ","))) }
        var components = URLComponents()
        components.queryItems = items
        return URL(string: "http://\(server)/?" + (components.percentEncodedQuery ?? ""))!
    }

    /// Opens `address` with `xdg-open`; false when there is none or it failed.
    package static func openInBrowser(_ address: String) -> Bool {
        (try? ChildProcess(executable: "xdg-open", arguments: [address]).run())?.succeeded ?? false
    }
}

/// Why the picker could not be shown or its answer read.
public enum MediaPickerError: Error, Sendable, CustomStringConvertible {
    /// `xdg-open` is missing or failed.
    case cannotOpenBrowser(URL)
    /// The page's Done message is not the hand-off's shape.
    case unreadableSelection(String)

    public var description: String {
        switch self {
        case .cannotOpenBrowser(let url): return "could not open a browser with xdg-open; open \(url) yourself"
        case .unreadableSelection(let reason): return "the picker sent a selection that cannot be read: \(reason)"
        }
    }
}

/// One picked item as the picker hands it over (`mediaindex pick --json` prints the same
/// fields): PhotosPicker's fields and the URLs, read field by field, so nothing else the
/// page sent is kept.
public struct PickedItem: Decodable, Sendable, Equatable {
    struct Message: Decodable { var assets: [PickedItem] }
    /// A resource's role and path (only with `include` path).
    public struct Resource: Decodable, Sendable, Equatable { public var role: String?; public var path: String? }
    /// The GPS position (only with `include` location).
    public struct Location: Decodable, Sendable, Equatable {
        public var latitude: Double?
        public var longitude: Double?
        public var altitude: Double?
    }

    /// The asset's identifier in the library.
    public var id: String
    /// The uniform type identifier of its primary file (`public.heic`, `public.mpeg-4`, …).
    public var uniformType: String?
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    /// Seconds, for videos.
    public var duration: Double?
    /// Whether the asset is its original file, with no edit (as PhotosPicker's Transferable says).
    public var isOriginalFile: Bool?
    /// Absolute URLs: `original`, `compatible` and `thumbnail`.
    public var urls: [String: String]?
    /// The resources' paths, only when the configuration's `include` has `path`.
    public var resources: [Resource]?
    /// The position, only when the configuration's `include` has `location`.
    public var location: Location?
    /// The URL the configuration's `preferredAssetRepresentationMode` chooses.
    public var preferredURL: String?

    private enum CodingKeys: String, CodingKey {
        case id, uniformType, pixelWidth, pixelHeight, duration, isOriginalFile, urls, resources, location
    }

    /// The items of a Done message, in selection order.
    package static func items(from body: [UInt8]) throws -> [PickedItem] {
        do { return try JSONDecoder().decode(Message.self, from: Data(body)).assets } catch {
            throw MediaPickerError.unreadableSelection("\(error)")
        }
    }

    /// The URL `mode` chooses.
    func url(for mode: MediaPicker.Configuration.AssetRepresentationMode) -> String? {
        switch mode {
        case .current: return urls?["original"]
        case .compatible: return urls?["compatible"]
        case .automatic:
            let ready: Set<String> = ["public.jpeg", "public.png", "com.compuserve.gif"]
            return urls?[uniformType.map(ready.contains) == true ? "original" : "compatible"]
        }
    }

    /// The item as `mediaindex pick --json` prints it: PhotosPicker's fields and the URLs;
    /// `resources` (paths) and `location` only when `include` names them.
    package func json(including include: [String]) -> JSON {
        var members: [(String, JSON)] = [
            ("id", .string(id)), ("uniformType", JSON(uniformType)), ("pixelWidth", JSON(pixelWidth)),
            ("pixelHeight", JSON(pixelHeight)), ("duration", JSON(duration)), ("isOriginalFile", JSON(isOriginalFile)),
            ("urls", .object(["original", "compatible", "thumbnail"].compactMap { key in urls?[key].map { (key, .string($0)) } })),
        ]
        if include.contains("path") {
            members.append(("resources", .array((resources ?? []).map { .object([("role", JSON($0.role)), ("path", JSON($0.path))]) })))
        }
        if include.contains("location") {
            members.append(("location", location.map { .object([("latitude", JSON($0.latitude)), ("longitude", JSON($0.longitude)),
                                                                  ("altitude", JSON($0.altitude))]) } ?? .null))
        }
        return .object(members)
    }
}
