import CorpusSupport
import Foundation
import Testing
@testable import MediaIndexCLI
import MediaIndexInterface

// Issue 13: what a hostile file name, a narrow terminal or a new user ran into.

private func temporaryFolder() throws -> String {
    let folder = NSTemporaryDirectory() + "mediaindex-reliability-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder + "/photos", withIntermediateDirectories: true)
    return folder
}

/// Copies a corpus file to `destination` (a path under the test's folder).
private func copyCorpus(_ relative: String, to destination: String) throws {
    let media = try #require(Corpus.media)
    try FileManager.default.createDirectory(atPath: (destination as NSString).deletingLastPathComponent,
                                            withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: media.path + "/" + relative, toPath: destination)
}

/// Runs a program in `folder`; its exit status and what it printed (stdout, then stderr).
private func runProgram(_ executable: String, _ arguments: [String], in folder: String) throws -> (status: Int32, output: String) {
    let outcome = try ExternalTool.outcome(executable, arguments, directory: folder)
    return (outcome.shellStatus, outcome.standardOutputText + outcome.standardErrorText)
}

private let pixelJPEG = "ente-test-fixtures/media/motion-photos/v1/files/pixel_8.jpg"
private let plainJPEG = "photoview/api/scanner/test_media/library/mount_merapi_volcano_indonesia.jpg"

/// The ids `assets --jsonl` prints, in order.
private func assetIDs(_ folder: String) async throws -> [String] {
    try await mediaindex(["assets", "--jsonl"], folder: folder).out.split(separator: "\n").map { line in
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try #require(object["id"] as? String)
    }
}

@Suite("TerminalSanitizer")
struct TerminalSanitizerTests {
    @Test("shows C0, DEL and C1 control characters escaped and leaves other text alone")
    func escapesControls() {
        #expect(TerminalSanitizer.escape("x\u{1B}]0;TITLE\u{07}\u{1B}[31mred\nline.jpg")
                == "x\\x1b]0;TITLE\\x07\\x1b[31mred\\nline.jpg")
        #expect(TerminalSanitizer.escape("a\tb\rc\u{7F}d\u{9B}e\u{00}") == "a\\tb\\rc\\x7fd\\u{9b}e\\x00")
        #expect(TerminalSanitizer.escape("Été 2024 — 東京 📷") == "Été 2024 — 東京 📷")
    }

    @Test("a table never passes a control character through and keeps one line per row")
    func tableEscapes() {
        let lines = TableRenderer(columns: [TableColumn("FILE")]).lines([["a\u{1B}[31m\nb"]])
        #expect(lines == ["FILE", "a\\x1b[31m\\nb"])
    }
}

@Suite("mediaindex human output of hostile names", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct HostileNameOutputTests {
    static let hostile = "x\u{1B}]0;TITLE\u{07}\u{1B}[31mred\nline"

    @Test("assets, show, errors and albums print file names with their control characters escaped")
    func humanOutputEscapes() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let directory = folder + "/photos/dir\u{1B}[32m"
        try copyCorpus(plainJPEG, to: directory + "/" + Self.hostile + ".jpg")
        FileManager.default.createFile(atPath: directory + "/" + Self.hostile + "-empty.jpg", contents: Data())
        #expect(await mediaindex(["index", "-q", folder + "/photos"], folder: folder).code == 0)
        let id = try #require(try await assetIDs(folder).first)

        for arguments in [["assets"], ["show", id], ["errors"], ["albums"]] {
            let result = await mediaindex(arguments, folder: folder, width: 250)
            #expect(result.code == 0, "\(arguments): \(result.err)")
            #expect(!result.out.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F },
                    "\(arguments) printed a control character")
            #expect(!result.out.contains("\u{1B}"))
        }
        let assets = await mediaindex(["assets"], folder: folder, width: 250).out
        #expect(assets.contains("x\\x1b]0;TITLE\\x07\\x1b[31mred\\nline.jpg"))
        #expect(assets.split(separator: "\n").count == 2, "a header and one row: \(assets)")
        let errors = await mediaindex(["errors"], folder: folder, width: 250).out
        #expect(errors.split(separator: "\n").count == 2)
        let albums = await mediaindex(["albums"], folder: folder, width: 250).out
        #expect(albums.contains("dir\\x1b[32m"))

        // JSON escapes them as JSON does: the exact name comes back.
        let json = await mediaindex(["show", "--json", id], folder: folder).out
        #expect(json.contains("\\u001b]0;TITLE\\u0007\\u001b[31mred\\nline.jpg"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let resources = try #require(object["resources"] as? [[String: Any]])
        #expect(resources.first?["path"] as? String == directory + "/" + Self.hostile + ".jpg")
    }
}

@Suite("Table shortening")
struct TableShorteningTests {
    @Test("a path column loses its middle and keeps the file name")
    func middleKeepsFileName() {
        let path = "/tmp/ux/Pictures/2024/Summer holidays in Brittany/IMG_0001.jpg"
        let cut = DisplayWidth.truncateMiddle(path, toWidth: 30)
        #expect(DisplayWidth.of(cut) == 30)
        #expect(cut.hasSuffix("/IMG_0001.jpg"))
        #expect(cut.hasPrefix("/tmp/"))
        #expect(cut.contains("…"))
        // A file name longer than the column keeps its end (the extension).
        let long = DisplayWidth.truncateMiddle("/a/" + String(repeating: "n", count: 40) + ".jpg", toWidth: 12)
        #expect(long.hasSuffix("nnnn.jpg") && DisplayWidth.of(long) == 12)
        #expect(DisplayWidth.truncateMiddle("short", toWidth: 10) == "short")
    }

    @Test("the FILE column of assets is shortened in the middle; ids are never shortened",
          .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
    func assetsAndAlbumsAtHundredColumns() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let deep = folder + "/photos/Pictures/2024/Summer holidays in Brittany with the whole family"
        try copyCorpus(plainJPEG, to: deep + "/IMG_0001.jpg")
        #expect(await mediaindex(["index", "-q", folder + "/photos"], folder: folder).code == 0)
        let assets = await mediaindex(["assets"], folder: folder, width: 100).out
        let row = try #require(assets.split(separator: "\n").dropFirst().first)
        #expect(row.hasSuffix("IMG_0001.jpg"), "\(row)")
        #expect(DisplayWidth.of(String(row)) <= 100)

        let albumsJSON = await mediaindex(["albums", "--json"], folder: folder).out
        let albums = try #require(try JSONSerialization.jsonObject(with: Data(albumsJSON.utf8)) as? [[String: Any]])
        let folderID = try #require(albums.compactMap { $0["id"] as? String }.first { $0.hasPrefix("folder.") && $0.count > 60 })
        let table = await mediaindex(["albums"], folder: folder, width: 100).out
        #expect(table.contains(folderID), "the folder album's id is cut: \(table)")
    }
}

@Suite("Capture times in tables", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct CaptureTimeDisplayTests {
    @Test("assets and show print the capture's own local time with its offset, not the viewer's zone")
    func ownLocalTime() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try copyCorpus(pixelJPEG, to: folder + "/photos/pixel.jpg")
        #expect(await mediaindex(["index", "-q", folder + "/photos"], folder: folder).code == 0)
        let reference = try #require(Corpus.exiftool[pixelJPEG])
        let original = try #require(reference["ExifIFD:DateTimeOriginal"]?.string)   // 2023:11:01 15:11:17
        let offset = try #require(reference["ExifIFD:OffsetTimeOriginal"]?.string)    // +01:00
        let day = original.prefix(10).replacingOccurrences(of: ":", with: "-")
        let expected = "\(day) \(original.dropFirst(11).prefix(5)) \(offset)"
        let table = await mediaindex(["assets"], folder: folder, width: 200).out
        #expect(table.contains(expected), "\(table)")
        let id = try #require(try await assetIDs(folder).first)
        let shown = await mediaindex(["show", id], folder: folder).out
        #expect(shown.contains("\(day) \(original.dropFirst(11).prefix(8)) \(offset)"), "\(shown)")
    }

    @Test("a floating time has no suffix and a UTC one says UTC")
    func suffixes() {
        let formatter = LocalDateFormatter(timeZone: TimeZone(identifier: "Asia/Tokyo") ?? .gmt)
        #expect(formatter.string(asRecorded: "2021-04-11T09:12:00-04:00") == "2021-04-11 09:12 -04:00")
        #expect(formatter.string(asRecorded: "2021-04-11T09:12:00") == "2021-04-11 09:12")
        #expect(formatter.string(asRecorded: "2021-04-11T13:12:00Z") == "2021-04-11 13:12 UTC")
    }
}

@Suite("Paper cuts of the command line")
struct CommandLinePaperCutTests {
    @Test("--to and --from take minutes with a zone: 2021-04-11T21:00Z is 21:00 UTC")
    func minutesWithZone() throws {
        let utc = try AssetListingParameters.date("2021-04-11T21:00Z", option: "--to", endOfDay: true)
        #expect(utc.timeIntervalSince1970 == 1_618_174_800)
        let offset = try AssetListingParameters.date("2021-04-11T23:00+02:00", option: "--to", endOfDay: true)
        #expect(offset == utc)
        #expect(try AssetListingParameters.date("2021-04-11T21:00:00Z", option: "--to", endOfDay: true) == utc)
        #expect(throws: ParameterError.self) { try AssetListingParameters.date("2021-04-11T25:00Z", option: "--to", endOfDay: true) }
    }

    @Test("UTC times keep the milliseconds they have, without binary noise")
    func noFloatNoise() {
        #expect(JSONShapes.isoUTC(Date(timeIntervalSince1970: 1_764_590_094.594)) == "2025-12-01T11:54:54.594Z")
        #expect(JSONShapes.isoUTC(Date(timeIntervalSince1970: 1_764_590_094)) == "2025-12-01T11:54:54Z")
    }

    @Test("completion scripts for bash, zsh and fish come from the command definitions")
    func completionScripts() throws {
        let parser = CommandParser(root: MediaIndexCommand.self)
        for shell in ["bash", "zsh", "fish"] {
            guard case .generated(let script) = try parser.parse(["--generate-completion-script", shell]) else {
                Issue.record("no script for \(shell)"); continue
            }
            for command in MediaIndexCommand.configuration.subcommands {
                #expect(script.contains(command.configuration.name), "\(shell) lacks \(command.configuration.name)")
                for argument in command.arguments where argument.isNamed {
                    #expect(script.contains(shell == "fish" ? "-l \(argument.name)" : argument.longFlag),
                            "\(shell) lacks \(command.configuration.name) \(argument.longFlag)")
                }
            }
        }
        #expect(throws: UsageError.self) { try parser.parse(["--generate-completion-script", "tcsh"]) }
    }

    @Test("the zsh and fish scripts parse, and fish completes subcommands and options")
    func zshAndFishParse() throws {
        let parser = CommandParser(root: MediaIndexCommand.self)
        let folder = NSTemporaryDirectory() + "mediaindex-completion-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
            try runProgram(executable, arguments, in: folder)
        }
        for (shell, executable, file) in [("zsh", "/usr/bin/zsh", "_mediaindex"), ("fish", "/usr/bin/fish", "mediaindex.fish")] {
            guard FileManager.default.isExecutableFile(atPath: executable) else {
                #expect(!Corpus.isCI, "\(shell) is not installed: scripts/install-dependencies --test installs it")
                continue
            }
            guard case .generated(let script) = try parser.parse(["--generate-completion-script", shell]) else { continue }
            try script.write(toFile: folder + "/" + file, atomically: true, encoding: .utf8)
            let checked = try run(executable, ["-n", file])
            #expect(checked.status == 0, "\(shell): \(checked.output)")
            if shell == "fish" {
                let offered = try run(executable, ["-c", "source \(file); complete -C 'mediaindex assets --mak'"]).output
                #expect(offered.hasPrefix("--make\t"), "\(offered)")
                let commands = try run(executable, ["-c", "source \(file); complete -C 'mediaindex th'"]).output
                #expect(commands.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) } == ["thumbnail", "thumbnails"])
            }
        }
    }

    @Test("the bash script is valid bash and completes subcommands, options and folders")
    func bashCompletes() throws {
        guard case .generated(let script) = try CommandParser(root: MediaIndexCommand.self)
            .parse(["--generate-completion-script=bash"]) else { Issue.record("no script"); return }
        let folder = NSTemporaryDirectory() + "mediaindex-completion-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder + "/Pictures", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try script.write(toFile: folder + "/completion.bash", atomically: true, encoding: .utf8)
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let probe = """
                source completion.bash
                COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
                _mediaindex
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let result = try runProgram("/bin/bash", ["-c", probe], in: folder)
            #expect(result.status == 0, "\(result.output)")
            return result.output.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["mediaindex", "th"]) == ["thumbnail", "thumbnails"])
        #expect(try complete(["mediaindex", "assets", "--ma"]) == ["--make", "--max-duration"])
        #expect(try complete(["mediaindex", "index", "Pic"]) == ["Pictures"])
        #expect(try complete(["mediaindex", "index", "--library", "Pic"]) == ["Pictures"])
    }

    @Test("the manual page names every command and option and is valid roff")
    func manualPage() throws {
        guard case .generated(let page) = try CommandParser(root: MediaIndexCommand.self).parse(["--generate-manual"]) else {
            Issue.record("no page"); return
        }
        #expect(page.contains(".TH MEDIAINDEX 1"))
        for command in MediaIndexCommand.configuration.subcommands {
            #expect(page.contains(".SS \"mediaindex \(ManualPageGenerator.escape(command.configuration.name))"),
                    "lacks \(command.configuration.name)")
            for argument in command.arguments where argument.isNamed {
                #expect(page.contains(ManualPageGenerator.escape(argument.longFlag)))
            }
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") else { return }
        let groff = try ExternalTool.outcome("/usr/bin/groff", ["-man", "-Tutf8", "-ww", "-z"], input: Array(page.utf8))
        #expect(groff.exitStatus == 0)
        #expect(groff.standardErrorText.isEmpty, "\(groff.standardErrorText)")
    }
}

@Suite("Paper cuts of listings", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct ListingPaperCutTests {
    @Test("--limit 0, counts in the singular, show's user state, errors --limit, upper-case ids")
    func listings() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try copyCorpus(plainJPEG, to: folder + "/photos/one.jpg")
        for name in ["a", "b", "c"] { FileManager.default.createFile(atPath: folder + "/photos/\(name).jpg", contents: Data()) }
        #expect(await mediaindex(["index", "-q", folder + "/photos"], folder: folder).code == 0)

        #expect(await mediaindex(["assets", "--limit", "0"], folder: folder, width: 120).out == "No assets shown: --limit 0.\n")
        #expect(await mediaindex(["assets", "--make", "nobody"], folder: folder, width: 120).out == "No assets match.\n")
        #expect(await mediaindex(["assets", "--count"], folder: folder).out == "1 asset: 1 image, 0 videos\n")

        let id = try #require(try await assetIDs(folder).first)
        let favorite = await mediaindex(["favorite", id.uppercased()], folder: folder)
        #expect(favorite.code == 0, "\(favorite.err)")
        let created = await mediaindex(["album", "create", "Trip"], folder: folder)
        #expect(created.code == 0)
        #expect(await mediaindex(["album", "add", "Trip", id.uppercased()], folder: folder).code == 0)
        let shown = await mediaindex(["show", id.uppercased()], folder: folder)
        #expect(shown.code == 0, "\(shown.err)")
        let lines = shown.out.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("Favorite yes"))
        #expect(lines.contains("Hidden no"))
        let albumID = try #require(created.out.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(lines.contains("Albums \(albumID)"), "\(shown.out)")

        let errors = await mediaindex(["errors", "--limit", "2"], folder: folder, width: 200).out
        #expect(errors.split(separator: "\n").count == 4, "header, 2 rows, and how many more: \(errors)")
        #expect(errors.hasSuffix("1 more; --limit 3 shows all.\n"))
        #expect(await mediaindex(["errors", "--limit", "1", "--json"], folder: folder).out.components(separatedBy: "\"path\"").count == 2)
    }

    @Test("errors --warnings lists the files read only in part, one line per warning, and errors leaves them out")
    func warningsListing() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try copyCorpus(plainJPEG, to: folder + "/photos/whole.jpg")
        // The same JPEG without its last 1,000 bytes and a PNG chunk running past the end of its file.
        try copyCorpus(plainJPEG, to: folder + "/photos/cut.jpg")
        let cut = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/photos/cut.jpg"))
        try cut.truncate(atOffset: try cut.seekToEnd() - 1_000)
        try cut.close()
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let ihdr: [UInt8] = [0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 0, 8, 0, 0, 0, 8, 8, 2, 0, 0, 0] + [0, 0, 0, 0]
        let idat: [UInt8] = [0, 0, 0x10, 0] + Array("IDAT".utf8) + [0x78, 0x9C]
        FileManager.default.createFile(atPath: folder + "/photos/chunk.png", contents: Data(signature + ihdr + idat))
        // A TIFF header whose first directory lies past the end of the file.
        FileManager.default.createFile(atPath: folder + "/photos/header.tif",
                                       contents: Data([0x49, 0x49, 0x2A, 0x00, 0x00, 0x00, 0x01, 0x00] + [UInt8](repeating: 0, count: 64)))
        #expect(await mediaindex(["index", "-q", folder + "/photos"], folder: folder).code == 0)
        #expect(await mediaindex(["errors"], folder: folder).out == "No errors.\n")

        let json = await mediaindex(["errors", "--warnings", "--json"], folder: folder)
        #expect(json.code == 0, "\(json.err)")
        let files = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]])
        let paths = files.compactMap { ($0["path"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } }
        #expect(paths.contains("header.tif") && paths.contains("chunk.png"), "\(json.out)")
        // The indexer reads a JPEG's headers, not its scan: a cut scan is the thumbnail's to report.
        #expect(!paths.contains("whole.jpg") && !paths.contains("cut.jpg"))
        for file in files { #expect(!((file["warnings"] as? [String]) ?? []).isEmpty, "\(file)") }
        let tiff = try #require(files.first { ($0["path"] as? String)?.hasSuffix("header.tif") == true })
        #expect((tiff["warnings"] as? [String])?.contains { $0.contains("TIFF directory") } == true, "\(tiff)")

        let table = await mediaindex(["errors", "--warnings"], folder: folder, width: 250).out
        let lines = table.split(separator: "\n")
        #expect(lines.first?.hasPrefix("FILE") == true && lines.first?.contains("WARNING") == true, "\(table)")
        #expect(lines.count == 1 + files.reduce(0) { $0 + (($1["warnings"] as? [String])?.count ?? 0) }, "\(table)")
        if files.count > 1 {
            let limited = await mediaindex(["errors", "--warnings", "--limit", "1"], folder: folder, width: 250).out
            #expect(limited.hasSuffix("\(files.count - 1) more; --limit \(files.count) shows all.\n"), "\(limited)")
        }
    }

    @Test("indexing a folder inside a registered root says that the whole root was indexed")
    func subfolderOfRoot() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try copyCorpus(plainJPEG, to: folder + "/photos/2024/one.jpg")
        #expect(await mediaindex(["index", "-q", folder + "/photos"], folder: folder).code == 0)
        let again = await mediaindex(["index", folder + "/photos/2024"], folder: folder)
        #expect(again.code == 0)
        let root = try #require(URL(fileURLWithPath: folder + "/photos").resolvingSymlinksInPath().path as String?)
        #expect(again.err.contains("is inside the registered root \(root), which was indexed whole"), "\(again.err)")
    }
}

@Suite("Albums and cameras on the command line", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct AlbumAndCameraCommandTests {
    @Test("album create refuses a taken title with exit 1, naming the album; add and move say what they did")
    func albumTitlesAndMessages() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try copyCorpus(plainJPEG, to: folder + "/photos/a.jpg")
        try copyCorpus("photoview/api/scanner/test_media/library/buttercup_close_summer_yellow.jpg", to: folder + "/photos/b.jpg")
        #expect(await mediaindex(["index", "-q", folder + "/photos"], folder: folder).code == 0)
        let ids = try await assetIDs(folder)
        let created = await mediaindex(["album", "create", "Summer 2024"], folder: folder)
        let albumID = try #require(created.out.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        let again = await mediaindex(["album", "create", "summer 2024"], folder: folder)
        #expect(again.code == 1)
        #expect(again.err == "Error: an album titled Summer 2024 already exists (\(albumID)); choose another title, or add to that album\n")
        #expect(await mediaindex(["album", "add", "Summer 2024"] + ids, folder: folder).out == "Added 2 to Summer 2024.\n")
        #expect(await mediaindex(["album", "add", "Summer 2024", ids[0]], folder: folder).out
                == "Added 0 to Summer 2024 (1 already in it).\n")
        #expect(await mediaindex(["album", "move", "Summer 2024", ids[0], "--to", "99"], folder: folder).out
                == "Moved 1 to position 1, the last there is.\n")
        let future = await mediaindex(["changes", "--since", "99999"], folder: folder)
        #expect(future.code == 3)
        #expect(!future.err.contains("expired") && future.err.contains("newer than any change"))
    }

    @Test("cameras lists normalised makes and models; tables and JSON show them; --recursive covers subfolders")
    func camerasAndRecursive() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try copyCorpus("exiv2-test-data/test/data/exiv2-bug876.jpg", to: folder + "/photos/2024/canon.jpg")
        try copyCorpus("exiftool-t-images/t/images/NikonD2Hs.jpg", to: folder + "/photos/2024/june/nikon.jpg")
        #expect(await mediaindex(["index", "-q", folder + "/photos"], folder: folder).code == 0)

        let cameras = await mediaindex(["cameras", "--json"], folder: folder)
        #expect(cameras.code == 0, "\(cameras.err)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(cameras.out.utf8)) as? [[String: Any]])
        #expect(list.compactMap { $0["make"] as? String }.sorted() == ["Canon", "Nikon"])
        let table = await mediaindex(["assets"], folder: folder, width: 200).out
        #expect(table.contains("Canon EOS 6D") && !table.contains("Canon Canon"))
        #expect(table.contains("Nikon D2Hs"))
        let json = await mediaindex(["assets", "--make", "NIKON", "--json"], folder: folder).out
        let assets = try #require((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["assets"] as? [[String: Any]])
        #expect(assets.count == 1)
        #expect(assets.first?["make"] as? String == Corpus.exiftool["exiftool-t-images/t/images/NikonD2Hs.jpg"]?["IFD0:Make"]?.string)
        #expect(assets.first?["cameraMake"] as? String == "Nikon" && assets.first?["cameraModel"] as? String == "D2Hs")

        let year = URL(fileURLWithPath: folder + "/photos/2024").resolvingSymlinksInPath().path
        #expect(await mediaindex(["assets", "--album", year, "--count"], folder: folder).out == "1 asset: 1 image, 0 videos\n")
        #expect(await mediaindex(["assets", "--album", year, "--recursive", "--count"], folder: folder).out
                == "2 assets: 2 images, 0 videos\n")
        let albums = try #require(try JSONSerialization.jsonObject(with: Data(await mediaindex(["albums", "--json"], folder: folder).out.utf8)) as? [[String: Any]])
        let yearAlbum = try #require(albums.first { $0["path"] as? String == year })
        #expect(yearAlbum["count"] as? Int == 1 && yearAlbum["countWithSubfolders"] as? Int == 2)
    }
}
