import Foundation
import MediaIndex
import Testing
@testable import MediaIndexCLI

@Suite("Library errors say what failed in the library's terms; the CLI says the remedy with its flags")
struct ErrorAdviceTests {
    static let errors: [LibraryError] = [
        .cacheDiskFull(path: "/c/t.jpg"),
        .unsafeCacheFolder(path: "/c", reason: "others can write to it"),
        .database(DatabaseError(extendedCode: 14, message: "unable to open database file", path: "/srv/lib/library.sqlite")),
        .database(DatabaseError(extendedCode: 8, message: "attempt to write a readonly database", path: "/srv/lib/user-state.sqlite")),
    ]

    @Test("no library error names a flag")
    func libraryTerms() {
        for error in Self.errors { #expect(!error.description.contains("--"), "\(error.description)") }
    }

    @Test("the CLI prints the sentences it printed before, with --cache-limit, --cache and --library")
    func flagWords() {
        #expect(Self.errors.map(ErrorAdvice.sentence(for:)) == [
            "the thumbnail cache's disk is full (writing /c/t.jpg); free some space, lower --cache-limit, or pass --cache DIR on another disk",
            "the thumbnail cache folder /c is refused: others can write to it; use a folder only you can write to (chmod 700), or pass --cache DIR",
            "cannot open /srv/lib/library.sqlite: the folder /srv/lib must be readable and writable (SQLite keeps -wal and -shm files beside the database); check its permissions, or pass --library (SQLite error 14)",
            "cannot write to /srv/lib/user-state.sqlite: it or its folder /srv/lib is read-only; check the permissions, or pass --library (SQLite error 8)",
        ])
        let bare = DatabaseError(extendedCode: 8, message: "attempt to write a readonly database", path: "/srv/lib/user-state.sqlite")
        #expect(ErrorAdvice.sentence(for: bare) == ErrorAdvice.sentence(for: LibraryError.database(bare)))
    }
}
