import Foundation
import Testing
@testable import MediaIndexCLI

/// A value each option refuses, and what the refusal must say (beyond naming the option).
///
/// Keyed by the option's long name, or by command and option where two commands'
/// options share a name (`album --to`); the test below walks every command's declarations,
/// so an option added without an entry here (or in `freeText`) fails it.
private let badValues: [String: (value: String, says: String)] = [
    "limit": ("-1", "negative"),
    "batch-size": ("0", "between"),
    "size": ("5", "16 to 4096"),
    "quiet-period": ("-1", "between"),
    "max-delay": ("-1", "at least"),
    "poll-interval": ("0", "between"),
    "listen": ("127.0.0.1:99999", "port"),
    "allow-origin": ("app.example.com", "origin"),
    "to": ("2024-13-45", "takes a date"),
    "on-this-day": ("02-30", "MM-DD"),
    "album --to": ("-1", "negative"),
    "since": ("-1", "negative"),
    "cache-limit": ("0", "at least 1"),
    "mode": ("fil", "did you mean 'fill'?"),
    "format": ("wepb", "did you mean 'webp'?"),
    "filter": ("imags", "did you mean 'images'?"),
    "from": ("yesterday", "takes a date"),
    "near": ("91,0,100", "latitude"),
    "bbox": ("10,0,5,1", "south"),
    "min-pixels": ("big", "WxH"),
    "min-duration": ("-5", "0 or more"),
    "max-duration": ("-1", "0 or more"),
    "type": ("jpg", "did you mean 'jpeg'?"),
    "sort": ("captureDat", "did you mean 'captureDate'?"),
    "rating": ("6", "-1 (rejected) to 5"),
    "min-rating": ("7", "-1 (rejected) to 5"),
    "has-caption": ("maybe", "yes"),
    "has-title": ("sometimes", "yes"),
    "clear": ("stars", "rating, title, caption or keywords"),
    "kind": ("dupe", "same-file, duplicate or similar"),
    "picker-origin": ("app.example.com", "one origin"),
    "include": ("paths", "path, location"),
    "at": ("yesterday", "ISO 8601"),
    "in": ("smart.recents", "Places album id"),
    "within": ("-3", "kilometres above 0"),
    "offset": ("+25:00", "between -14:00 and +14:00"),
    "zone": ("Mars/Olympus", "IANA time zone"),
    "fields": ("creatoinDate", "did you mean 'creationDate'?"),
]

/// Options whose value is free text or a path, checked when used (an album's name, a
/// camera's make, a cursor against the library).
private let freeText: Set<String> = ["library", "cache", "token-file", "album", "make", "model", "after", "country", "place",
                                     "title", "caption", "keyword", "keep", "person", "label"]

/// Positionals a command needs before its options are read.
private let positionals: [String: [String]] = [
    "album": ["move", "album", "asset"], "show": ["asset"], "thumbnail": ["asset"],
    "favorite": ["asset"], "unfavorite": ["asset"], "adjust-time": ["asset"], "hide": ["asset"], "unhide": ["asset"], "describe": ["asset"],
    "search": ["beach"], "place": ["35,139"],
]

/// Options a command needs beside the one tested (`--size` only counts with `--thumbnails`).
private let companions: [String: [String]] = ["index --size": ["--thumbnails"], "watch --size": ["--thumbnails"]]

private func badValue(_ command: String, _ option: String) -> (value: String, says: String)? {
    badValues["\(command) --\(option)"] ?? badValues[option]
}

@Suite("Every option value is checked")
struct OptionValueTests {
    static let cases: [(command: String, option: String)] = MediaIndexCommand.configuration.subcommands.flatMap { type in
        type.arguments.compactMap { argument -> (String, String)? in
            guard case .option = argument.kind else { return nil }
            return (type.configuration.name, argument.name)
        }
    }

    @Test("every option that takes a value has a bad value to try, or is free text")
    func everyOptionIsListed() {
        for (command, option) in Self.cases {
            #expect(badValue(command, option) != nil || freeText.contains(option), "\(command) --\(option)")
        }
    }

    @Test("a bad value is refused as a usage error naming the option, before any work")
    func refusesBadValues() async throws {
        let folder = NSTemporaryDirectory() + "mediaindex-options-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (command, option) in Self.cases {
            guard let bad = badValue(command, option) else { continue }
            let arguments = [command] + (positionals[command] ?? []) + (companions["\(command) --\(option)"] ?? [])
                + ["--\(option)", bad.value]
            let result = await mediaindex(arguments, folder: folder)
            #expect(result.code == 64, "\(arguments): \(result.err)")
            #expect(result.err.contains("--\(option)") && result.err.contains(bad.says), "\(arguments): \(result.err)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/library"), "\(arguments) made a library")
        }
    }

    @Test("--type lists the formats it takes")
    func typeListsFormats() async {
        let result = await mediaindex(["assets", "--type", "spreadsheet"], folder: NSTemporaryDirectory() + UUID().uuidString)
        #expect(result.code == 64)
        #expect(result.err.contains("--type takes one of jpeg, png, gif") && result.err.contains("mov, mp4"))
        #expect(!result.err.contains("did you mean"))
    }
}
