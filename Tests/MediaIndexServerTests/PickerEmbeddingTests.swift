import CorpusSupport
import Foundation
import Testing
@testable import MediaIndexCLI
@testable import MediaIndexServer

@Suite("Who may embed the web picker and receive its selection", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct PickerEmbeddingTests {
    @Test("without --picker-origin the page may be framed by no other origin, and posts to its own origin only")
    func sameOriginByDefault() throws {
        let served = try ServedLibrary()
        let page = try served.get("/")
        let policy = try #require(page.header("Content-Security-Policy"))
        #expect(policy.hasSuffix("; frame-ancestors 'self'"), "\(policy)")
        #expect(page.text.contains(#"<meta name="mediaindex-target-origin" content="self">"#))
        // The script never posts to any origin ("*").
        let script = try served.get("/picker.js").text
        #expect(!script.contains(#""*""#))
        #expect(script.contains("mediaindex-target-origin"))
    }

    @Test("with --picker-origin that origin alone may frame the page and receives the selection")
    func configuredOrigin() throws {
        let served = try ServedLibrary(pickerOrigin: "https://app.example.com")
        let page = try served.get("/")
        #expect(page.header("Content-Security-Policy")?.hasSuffix("; frame-ancestors 'self' https://app.example.com") == true)
        #expect(page.text.contains(#"<meta name="mediaindex-target-origin" content="https://app.example.com">"#))
    }

    @Test("--picker-origin takes one origin: scheme, host, port; a path, a wildcard or a quote is refused")
    func originValidated() {
        for good in ["https://app.example.com", "http://127.0.0.1:8080", "http://[::1]:3000"] {
            #expect(ServeCommand.isOrigin(good), "\(good)")
        }
        for bad in ["*", "https://app.example.com/picker", "app.example.com", "ftp://x.example", "https://a.example'; script-src *",
                    "https://*.example.com", "https://a.example?x=1", "javascript:alert(1)", "https://user@a.example"] {
            #expect(!ServeCommand.isOrigin(bad), "\(bad)")
        }
    }
}
