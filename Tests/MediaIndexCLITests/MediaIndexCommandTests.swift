import CorpusSupport
import Foundation
import Testing
@testable import MediaIndexCLI

private func temporaryLibrary() -> String {
    NSTemporaryDirectory() + "mediaindex-cli-" + UUID().uuidString
}

@Suite("mediaindex command tree")
struct MediaIndexCommandTreeTests {
    @Test("declares no conflicting names or misplaced positionals")
    func declarationsAreSound() {
        #expect(CommandParser(root: MediaIndexCommand.self).declarationProblems() == [])
    }

    @Test("the root help has the fixed OVERVIEW / USAGE / OPTIONS / SUBCOMMANDS shape")
    func rootHelp() throws {
        let help = try CommandParser(root: MediaIndexCommand.self).helpText(for: [])
        #expect(help == """
            OVERVIEW: Index photo and video folders and answer a photo picker's questions.

            The library lives in --library DIR, else $MEDIAINDEX_LIBRARY, else $XDG_DATA_HOME/mediaindex (~/.local/share/mediaindex).

            USAGE: mediaindex <subcommand>

            OPTIONS:
              --version               Show the version.
              --generate-completion-script <shell>
                                      Print a completion script for bash, zsh or fish.
              --generate-manual       Print the mediaindex.1 manual page.
              -h, --help              Show help information.

            SUBCOMMANDS:
              index                   Index the given folders, or every registered root.
              watch                   Keep the roots indexed as their files change.
              roots                   List the registered roots, or forget one with 'roots
                                      remove ROOT'.
              stats                   Show counts over the library.
              assets                  List assets, newest first.
              search                  Search assets by words and field:value terms.
              show                    Show one asset, by identifier or by the path of one of
                                      its files.
              cameras                 List camera makes and models with their asset counts.
              errors                  List files that could not be read, with the reason.
              changes                 List asset changes since a change token.
              albums                  List smart, Places, user and folder albums with their
                                      counts.
              album                   Edit user albums: create, rename, delete, add, remove,
                                      move, key.
              favorite                Mark assets as favorites.
              unfavorite              Unmark favorite assets.
              hide                    Hide assets from listings (see --include-hidden).
              unhide                  Show hidden assets again.
              describe                Set your own rating, title, caption or keywords.
              adjust-time             Set the UTC offset or time zone of assets' capture
                                      times, or reset it.
              export-xmp              Write your own words into new .xmp sidecars.
              thumbnail               Print an asset's thumbnail path (made if needed).
              thumbnails              Make missing thumbnails, or collect old ones (--gc).
              duplicates              List duplicate and similar photos, or resolve them.
              serve                   Serve the HTTP API and the web picker, keeping the
                                      library indexed.
              pick                    Open the web picker in the browser and print what the
                                      user picks.
              place                   Look up the place, time zone and UTC offset of a
                                      position, offline.
              places                  Install the offline places data: places install
                                      [--force].

              See 'mediaindex help <subcommand>' for detailed help.
            """)
    }

    @Test("every command's help lists --library")
    func everyCommandTakesLibrary() throws {
        let parser = CommandParser(root: MediaIndexCommand.self)
        for name in ["index", "roots", "stats", "assets", "show", "errors", "changes", "albums", "favorite", "hide"] {
            let help = try parser.helpText(for: [name])
            #expect(help.contains("--library <dir>"), "\(name) lacks --library")
            #expect(help.hasPrefix("OVERVIEW: "))
            #expect(help.contains("\nUSAGE: mediaindex \(name)"))
        }
    }

    @Test("a bad command line exits 64 with Error: and a usage line on stderr")
    func usageErrors() async {
        let library = temporaryLibrary()
        let unknown = await mediaindex(["assets", "--limt", "3"], library: library)
        #expect(unknown.code == 64)
        #expect(unknown.err.hasPrefix("Error: Unknown option '--limt'. Did you mean '--limit'?"))
        #expect(unknown.err.contains("Usage: mediaindex assets"))
        let both = await mediaindex(["assets", "--json", "--jsonl"], library: library)
        #expect(both.code == 64)
        let badAction = await mediaindex(["roots", "delete", "/x"], library: library)
        #expect(badAction.code == 64)
        #expect(badAction.err.contains("unknown action 'delete'"))
    }

    @Test("reading a library that does not exist fails with exit 1 and says what to do")
    func missingLibrary() async {
        let result = await mediaindex(["stats"], library: temporaryLibrary())
        #expect(result.code == 1)
        #expect(result.err.contains("no library at"))
        #expect(result.err.contains("mediaindex index FOLDER"))
    }
}

@Suite("mediaindex on the corpus", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct MediaIndexCommandCorpusTests {
    @Test("index, then stats, assets, show and errors answer in JSON with the documented shape")
    func endToEnd() async throws {
        let library = temporaryLibrary()
        defer { try? FileManager.default.removeItem(atPath: library) }
        let root = Corpus.media!.path + "/ianare-exif-samples"

        let indexed = await mediaindex(["index", "--json", root], library: library)
        #expect(indexed.code == 0, "\(indexed.err)")
        let summary = try JSONSerialization.jsonObject(with: Data(indexed.out.utf8)) as? [String: Any]
        let scanned = summary?["scanned"] as? Int ?? -1
        #expect(scanned > 50)
        #expect(summary?["opened"] as? Int == scanned)

        let again = await mediaindex(["index", "--json"], library: library)
        let second = try JSONSerialization.jsonObject(with: Data(again.out.utf8)) as? [String: Any]
        #expect(second?["opened"] as? Int == 0)
        #expect(second?["unchanged"] as? Int == scanned)

        let lines = await mediaindex(["assets", "--jsonl"], library: library)
        #expect(lines.code == 0)
        let assets = try lines.out.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(assets.count == (summary?["added"] as? Int))
        let documented = ["id", "mediaType", "mediaSubtypes", "creationDate", "pixelWidth", "pixelHeight",
                          "orientation", "durationSeconds", "frameRate", "location", "make", "model", "lensModel",
                          "contentIdentifier", "burstIdentifier", "resources"]
        for asset in assets {
            for key in documented { #expect(asset.keys.contains(key), "missing \(key)") }
        }

        // A known file, checked against exiftool's reading of it.
        let relative = "ianare-exif-samples/jpg/Canon_40D.jpg"
        let reference = try #require(Corpus.exiftool[relative])
        let shown = await mediaindex(["show", "--json", Corpus.media!.path + "/" + relative], library: library)
        #expect(shown.code == 0, "\(shown.err)")
        let asset = try #require(try JSONSerialization.jsonObject(with: Data(shown.out.utf8)) as? [String: Any])
        #expect(asset["make"] as? String == reference["IFD0:Make"]?.string)
        #expect(asset["model"] as? String == reference["IFD0:Model"]?.string)
        #expect(asset["pixelWidth"] as? Int == reference["File:ImageWidth"]?.number.map { Int($0) })
        let date = try #require(reference["ExifIFD:DateTimeOriginal"]?.string)  // 2008:05:30 15:56:01
        #expect((asset["creationDate"] as? String)?.hasPrefix(
            date.prefix(10).replacingOccurrences(of: ":", with: "-") + "T" + date.suffix(8)) == true)
        let byID = await mediaindex(["show", asset["id"] as? String ?? "", "--json"], library: library)
        #expect(byID.out == shown.out)

        let errors = await mediaindex(["errors", "--json"], library: library)
        #expect(errors.code == 0)
        #expect((try JSONSerialization.jsonObject(with: Data(errors.out.utf8))) is [Any])

        let stats = await mediaindex(["stats", "--json"], library: library)
        let counts = try JSONSerialization.jsonObject(with: Data(stats.out.utf8)) as? [String: Any]
        #expect(counts?["assets"] as? Int == assets.count)

        let missing = await mediaindex(["show", "zzzzzzzzzzzzz"], library: library)
        #expect(missing.code == 1)
        #expect(missing.err.contains("no asset matches"))
    }
}

@Suite("mediaindex index --json")
struct IndexJSONTimingsTests {
    @Test("reports the seconds of each phase of the run under timings")
    func timings() async throws {
        let library = temporaryLibrary()
        let root = temporaryLibrary() + "-tree"
        defer {
            try? FileManager.default.removeItem(atPath: library)
            try? FileManager.default.removeItem(atPath: root)
        }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data("notes".utf8).write(to: URL(fileURLWithPath: root + "/notes.txt"))
        let indexed = await mediaindex(["index", "--json", root], library: library)
        #expect(indexed.code == 0, "\(indexed.err)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(indexed.out.utf8)) as? [String: Any])
        let timings = try #require(summary["timings"] as? [String: Double], "\(indexed.out)")
        #expect(Set(timings.keys) == ["walk", "diff", "read", "write", "pair", "finish"])
        #expect(timings.values.allSatisfy { $0 >= 0 })
        #expect(summary["scanned"] as? Int == 1 && summary["skipped"] as? Int == 1)
    }
}
