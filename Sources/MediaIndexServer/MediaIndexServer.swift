import MediaIndex

/// The MediaIndex HTTP server: the API and web picker (`MediaIndexAPI`) on
/// libmicrohttpd (`HTTPServer`), bound to `configuration.policy.address`.
///
/// ```swift
/// let token = try ServeToken.loadOrCreate(at: library.location.directory + "/serve.token").token
/// let policy = AccessPolicy(address: .loopbackDefault, token: token)
/// let server = try MediaIndexServer(configuration: .init(library: library, policy: policy,
///                                                        isReadOnly: false, watcherState: { [] }))
/// print("http://\(server.address)/")
/// ```
public final class MediaIndexServer: Sendable {
    /// The routes.
    public let api: MediaIndexAPI
    /// The HTTP server under them.
    public let http: HTTPServer

    /// Where the server listens, with the port the kernel chose for port 0.
    public var address: ListenAddress { http.address }

    /// Binds and starts serving.
    ///
    /// - Throws: `HTTPServerError` when the address cannot be bound, `LibraryError`
    ///   when the library cannot be read.
    public init(configuration: MediaIndexAPI.Configuration) throws {
        api = try MediaIndexAPI(configuration: configuration)
        do {
            http = try HTTPServer(address: configuration.policy.address, handler: api)
        } catch {
            api.serverWillStop()
            throw error
        }
        api.serverDidBind(to: http.address)
    }

    /// Ends streams and long polls, stops accepting and waits for open connections.
    public func stop() {
        http.stop()
    }
}
