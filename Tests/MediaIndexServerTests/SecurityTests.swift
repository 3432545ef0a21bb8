import CorpusSupport
import Foundation
import MediaIndex
import Testing
@testable import MediaIndexServer
#if canImport(Glibc)
import Glibc
#endif

@Suite("HTTP API refusals", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct RefusalTests {
    @Test("on loopback the Host must be localhost, 127.0.0.1 or [::1] with the port")
    func hostCheck() throws {
        let served = try ServedLibrary()
        let port = served.port
        for host in ["localhost:\(port)", "127.0.0.1:\(port)", "[::1]:\(port)", "LOCALHOST:\(port)"] {
            #expect(try served.get("/v1/status", host: host).status == 200, "\(host)")
        }
        for host in ["evil.example:\(port)", "localhost", "127.0.0.1", "localhost:\(port + 1)", "localhost.evil.example:\(port)", ""] {
            let refused = try served.get("/v1/status", host: host)
            #expect(refused.status == 400, "\(host)")
            #expect(refused.errorCode == "badHost")
        }
        // The picker page is refused too: a rebinding page would read it.
        #expect(try served.get("/", host: "evil.example:\(port)").status == 400)
    }

    @Test("writes need the token even on loopback; a wrong token is a 401")
    func writesNeedTheToken() async throws {
        let served = try ServedLibrary()
        let id = try served.anyAssetID()
        let anonymous = try served.send("PUT", "/v1/assets/\(id)/favorite")
        #expect(anonymous.status == 401)
        #expect(anonymous.errorCode == "unauthorized")
        let wrong = try served.send("PUT", "/v1/assets/\(id)/favorite", headers: ["Authorization": "Bearer \(String(repeating: "0", count: 64))"])
        #expect(wrong.status == 401)
        #expect(try served.asset(id)?.isFavorite == false)
        let allowed = try served.send("PUT", "/v1/assets/\(id)/favorite", headers: served.bearer)
        #expect(allowed.status == 200)
        #expect((allowed.json as? [String: Any])?["favorite"] as? Bool == true)
        #expect(try served.asset(id)?.isFavorite == true)
        #expect(allowed.text == (await served.cli(["show", id, "--json"])))
        #expect(try served.send("DELETE", "/v1/assets/\(id)/favorite", headers: served.bearer).status == 200)
        #expect(try served.asset(id)?.isFavorite == false)
        #expect(try served.send("PUT", "/v1/assets/\(id)/hidden", headers: served.bearer).status == 200)
        #expect(try served.asset(id)?.isHidden == true)
        #expect(try served.send("PUT", "/v1/assets/zzzzzzzzzzzzz/hidden", headers: served.bearer).status == 404)
        // Reads need no token on loopback, and a wrong bearer token is refused even for them.
        #expect(try served.get("/v1/assets").status == 200)
        #expect(try served.get("/v1/assets", headers: ["Authorization": "Bearer nope"]).status == 401)
    }

    @Test("loading / on loopback sets the HttpOnly SameSite=Strict cookie; a cookie write needs X-MediaIndex: 1")
    func cookie() throws {
        let served = try ServedLibrary()
        let page = try served.get("/")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.text.contains("/picker.js"))
        let cookie = try require(page.header("Set-Cookie"))
        #expect(cookie == "mediaindex_token=\(served.token.value); HttpOnly; SameSite=Strict; Path=/")
        let id = try served.anyAssetID()
        let jar = ["Cookie": "mediaindex_token=\(served.token.value)"]
        let withoutHeader = try served.send("PUT", "/v1/assets/\(id)/favorite", headers: jar)
        #expect(withoutHeader.status == 401)
        #expect(withoutHeader.errorMessage?.contains("X-MediaIndex: 1") == true)
        var withHeader = jar
        withHeader["X-MediaIndex"] = "1"
        #expect(try served.send("PUT", "/v1/assets/\(id)/favorite", headers: withHeader).status == 200)
        #expect(try served.get("/picker.js").status == 200)
        #expect(try served.get("/picker.js").header("Content-Type") == "text/javascript; charset=utf-8")
    }

    @Test("bodies above 1 MB are refused with 413, before they are read")
    func bodyLimit() throws {
        let served = try ServedLibrary()
        let big = "{\"title\": \"" + String(repeating: "a", count: (1 << 20) + 10) + "\"}"
        let refused = try served.send("POST", "/v1/albums", headers: served.bearer, body: big)
        #expect(refused.status == 413)
        #expect(refused.errorCode == "bodyTooLarge")
        #expect(try served.library.blocking.fetchAlbums().allSatisfy { $0.kind != .user })
    }

    @Test("POST /v1/albums creates a user album and POST/DELETE …/assets edit it, as album create/add/remove")
    func albumWrites() async throws {
        let served = try ServedLibrary()
        let created = try served.send("POST", "/v1/albums", headers: served.bearer, body: #"{"title": "Trip"}"#)
        #expect(created.status == 201)
        let album = try require(created.json as? [String: Any])
        let albumID = try require(album["id"] as? String)
        #expect(albumID.hasPrefix("user."))
        #expect(album["title"] as? String == "Trip")
        let id = try served.anyAssetID()
        let added = try served.send("POST", "/v1/albums/\(albumID)/assets", headers: served.bearer, body: "{\"ids\": [\"\(id)\"]}")
        #expect(added.status == 200)
        #expect((added.json as? [String: Any])?["count"] as? Int == 1)
        #expect(try served.get("/v1/albums").text == (await served.cli(["albums", "--json"])))
        let unknownAsset = try served.send("POST", "/v1/albums/\(albumID)/assets", headers: served.bearer,
                                           body: #"{"ids": ["zzzzzzzzzzzzz"]}"#)
        #expect(unknownAsset.status == 404)
        let removed = try served.send("DELETE", "/v1/albums/\(albumID)/assets", headers: served.bearer, body: "{\"ids\": [\"\(id)\"]}")
        #expect((removed.json as? [String: Any])?["count"] as? Int == 0)
        for body in ["", "not json", #"{"id": ["x"]}"#, #"{"ids": "x"}"#, #"{"ids": []}"#] {
            #expect(try served.send("POST", "/v1/albums/\(albumID)/assets", headers: served.bearer, body: body).status == 400, "\(body)")
        }
        #expect(try served.send("POST", "/v1/albums", headers: served.bearer, body: #"{"name": "x"}"#).status == 400)
        #expect(try served.send("POST", "/v1/albums/user.nosuchalbum00/assets", headers: served.bearer,
                                body: "{\"ids\": [\"\(id)\"]}").status == 404)
        #expect(try served.send("POST", "/v1/albums/smart.favorites/assets", headers: served.bearer,
                                body: "{\"ids\": [\"\(id)\"]}").status == 400)
    }

    @Test("a read-only server (--no-watch) refuses writes and says so in /v1/status")
    func readOnly() throws {
        let served = try ServedLibrary(readOnly: true)
        let refused = try served.send("PUT", "/v1/assets/\(try served.anyAssetID())/favorite", headers: served.bearer)
        #expect(refused.status == 405)
        #expect(refused.errorCode == "readOnly")
        #expect((try served.get("/v1/status").json as? [String: Any])?["readOnly"] as? Bool == true)
    }

    @Test("no CORS headers unless an origin is allowed, and then only for that origin")
    func cors() throws {
        let plain = try ServedLibrary()
        #expect(try plain.get("/v1/assets", headers: ["Origin": "https://app.example"]).header("Access-Control-Allow-Origin") == nil)
        #expect(try plain.send("OPTIONS", "/v1/assets", headers: ["Origin": "https://app.example",
                                                                  "Access-Control-Request-Method": "GET"]).status == 405)
        let allowing = try ServedLibrary(allowedOrigin: "https://app.example")
        #expect(try allowing.get("/v1/assets", headers: ["Origin": "https://app.example"]).header("Access-Control-Allow-Origin") == "https://app.example")
        #expect(try allowing.get("/v1/assets", headers: ["Origin": "https://other.example"]).header("Access-Control-Allow-Origin") == nil)
        let preflight = try allowing.send("OPTIONS", "/v1/assets/x/favorite", headers: ["Origin": "https://app.example",
                                                                                      "Access-Control-Request-Method": "PUT"])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Headers")?.contains("Authorization") == true)
    }
}

@Suite("HTTP API off loopback", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct NonLoopbackTests {
    @Test("bound to 0.0.0.0 (reached here through 127.0.0.1), every request needs the token")
    func everyRequestNeedsTheToken() throws {
        let served = try ServedLibrary(listen: ListenAddress(host: "0.0.0.0", port: 0, isIPv6: false))
        #expect(!served.server.address.isLoopback)
        for path in ["/v1/assets", "/v1/status", "/v1/albums", "/v1/changes", "/", "/picker.js"] {
            let refused = try served.get(path)
            #expect(refused.status == 401, "\(path)")
        }
        // Off loopback any Host is fine: names are unknowable, the token is the check.
        #expect(try served.get("/v1/assets", headers: served.bearer, host: "photos.example:443").status == 200)
        #expect(try served.get("/?token=\(String(repeating: "f", count: 64))").status == 401)
        let handshake = try served.get("/?token=\(served.token.value)&limit=2")
        #expect(handshake.status == 303)
        #expect(handshake.header("Location") == "/?limit=2")
        #expect(handshake.header("Set-Cookie") == "mediaindex_token=\(served.token.value); HttpOnly; SameSite=Strict; Path=/")
        let jar = ["Cookie": "mediaindex_token=\(served.token.value)"]
        #expect(try served.get("/", headers: jar).status == 200)
        #expect(try served.get("/", headers: jar).header("Set-Cookie") == nil)
        #expect(try served.get("/v1/assets", headers: jar).status == 200)
    }

    @Test("addresses are classified: 127.0.0.0/8 and ::1 are loopback, wildcards and LAN addresses are not")
    func classification() throws {
        for text in ["127.0.0.1:8423", "127.5.6.7:1", "localhost:80", "[::1]:8423", "[::ffff:127.0.0.1]:8423"] {
            #expect(try ListenAddress(parsing: text).isLoopback, "\(text)")
        }
        for text in ["0.0.0.0:8423", "[::]:8423", "192.168.1.20:8423", "10.0.0.1:80", "[fe80::1]:80", "[::2]:80"] {
            #expect(try !ListenAddress(parsing: text).isLoopback, "\(text)")
        }
        for text in ["8423", "127.0.0.1", "127.0.0.1:99999", "photos.example:80", "[::1]8423", "127.0.0.1:-1"] {
            #expect(throws: ListenAddressError.self, "\(text)") { try ListenAddress(parsing: text) }
        }
    }
}

@Suite("Serve token")
struct ServeTokenTests {
    @Test("a missing token file is created mode 0600 with 256 random bits, and read back the next time")
    func createdOnce() throws {
        let path = NSTemporaryDirectory() + "mediaindex-token-" + UUID().uuidString
        defer { unlink(path) }
        let (token, created) = try ServeToken.loadOrCreate(at: path)
        #expect(created)
        #expect(token.value.count == 64)
        #expect(token.value.allSatisfy { $0.isHexDigit })
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        let (again, createdAgain) = try ServeToken.loadOrCreate(at: path)
        #expect(!createdAgain)
        #expect(again == token)
        #expect(ServeToken.random() != ServeToken.random())
    }

    @Test("a token file others can read, a symlink or a short token is refused")
    func refusedFiles() throws {
        let path = NSTemporaryDirectory() + "mediaindex-token-" + UUID().uuidString
        defer { unlink(path); unlink(path + ".link") }
        try String(repeating: "a", count: 64).write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o644)
        #expect(throws: ServeTokenError.self) { try ServeToken.loadOrCreate(at: path) }
        chmod(path, 0o600)
        #expect(try ServeToken.loadOrCreate(at: path).token.value == String(repeating: "a", count: 64))
        symlink(path, path + ".link")
        #expect(throws: ServeTokenError.self) { try ServeToken.loadOrCreate(at: path + ".link") }
        try "short".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o600)
        #expect(throws: ServeTokenError.self) { try ServeToken.read(at: path) }
    }

    @Test("matches only the exact token, whatever the length of the guess")
    func matching() {
        let token = ServeToken(value: String(repeating: "ab", count: 32))
        #expect(token.matches(String(repeating: "ab", count: 32)))
        #expect(!token.matches(String(repeating: "ab", count: 31)))
        #expect(!token.matches(String(repeating: "ab", count: 32) + "a"))
        #expect(!token.matches(""))
        #expect(!token.matches(String(repeating: "ab", count: 31) + "aa"))
    }
}
