import CorpusSupport
import Foundation
import MediaIndexInterface
import Testing
@testable import MediaIndex
@testable import MediaIndexCLI

@Suite("--fields names its choices from the field table")
struct AssetFieldSelectionTests {
    @Test("every field of the table is a name --fields takes, and choosing all of them is the whole shape's keys")
    func derivedFromTheTable() throws {
        let all = try AssetFieldSelection(parsing: AssetFieldSelection.names.reversed().joined(separator: ","))
        #expect(all.fields == AssetFields.all.map(\.field))
        let twice = try AssetFieldSelection(parsing: " place , id,id,place,")
        #expect(twice.fields == [.id, .place])
    }

    @Test("an unknown name is one sentence with the nearest name, listing nothing else")
    func refusesUnknownNames() {
        #expect(throws: AssetFieldSelectionError.self) { try AssetFieldSelection(parsing: "") }
        #expect(throws: AssetFieldSelectionError.self) { try AssetFieldSelection(parsing: " , ") }
        do {
            _ = try AssetFieldSelection(parsing: "id,creatoinDate")
            Issue.record("creatoinDate was taken")
        } catch {
            #expect(error.description == "unknown field 'creatoinDate'; did you mean 'creationDate'?")
        }
        do { _ = try AssetFieldSelection(parsing: "zzzzzzzz") } catch { #expect(error.description == "unknown field 'zzzzzzzz'") }
    }
}

@Suite("--fields on the corpus", .enabled(if: Corpus.isAvailable, "\(Corpus.missingMessage)"))
struct FieldsOptionCorpusTests {
    static let relative = "ianare-exif-samples/jpg/Canon_40D.jpg"

    @Test("assets, search and show print only the chosen fields: JSON keys in the table's order, or table columns")
    func choosesFields() async throws {
        let library = NSTemporaryDirectory() + "mediaindex-fields-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: library) }
        #expect(await mediaindex(["index", Corpus.media!.path + "/ianare-exif-samples/jpg"], library: library).code == 0)
        let reference = try #require(Corpus.exiftool[Self.relative])
        let path = Corpus.media!.path + "/" + Self.relative

        let shown = await mediaindex(["show", path, "--json", "--fields", "model,creationDate,id,model"], library: library)
        #expect(shown.code == 0, "\(shown.err)")
        let asset = try #require(try JSONSerialization.jsonObject(with: Data(shown.out.utf8)) as? [String: Any])
        #expect(Set(asset.keys) == ["id", "creationDate", "model"])
        #expect(asset["model"] as? String == reference["IFD0:Model"]?.string)
        let order = ["\"id\"", "\"creationDate\"", "\"model\""].compactMap { shown.out.range(of: $0)?.lowerBound }
        #expect(order.count == 3 && order == order.sorted())
        let lines = await mediaindex(["show", path, "--fields", "make,model"], library: library)
        #expect(lines.out == "make: \(reference["IFD0:Make"]?.string ?? "")\nmodel: \(reference["IFD0:Model"]?.string ?? "")\n")

        let all = await mediaindex(["assets", "--jsonl"], library: library)
        let listed = await mediaindex(["assets", "--jsonl", "--fields", "make,id"], library: library)
        let objects = try listed.out.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == all.out.split(separator: "\n").count && objects.count > 20)
        for object in objects { #expect(Set(object.keys) == ["id", "make"]) }

        let found = await mediaindex(["search", "canon", "--json", "--fields", "place"], library: library)
        let page = try #require(try JSONSerialization.jsonObject(with: Data(found.out.utf8)) as? [String: Any])
        let places = try #require(page["assets"] as? [[String: Any]])
        #expect(!places.isEmpty)
        // A chosen field is written even where it is empty (an asset taken nowhere known has `place: null`).
        for object in places { #expect(Array(object.keys) == ["place"]) }

        let table = await mediaindex(["assets", "--fields", "id,model", "--sort", "fileName"], library: library, width: 200)
        let rows = table.out.split(separator: "\n")
        #expect(rows.first?.split(separator: " ", omittingEmptySubsequences: true) == ["id", "model"])
        #expect(rows.contains { $0.hasSuffix(reference["IFD0:Model"]?.string ?? "?") })
    }

    @Test("without --fields the table is the summary: its columns name their fields, and a row reads as exiftool does")
    func summaryTable() async throws {
        #expect(AssetTable.summary.selection.fields == [
            .id, .mediaType, .mediaSubtypes, .creationDate, .pixelWidth, .pixelHeight, .durationSeconds,
            .cameraMake, .cameraModel, .resources, .favorite, .hidden,
        ])
        #expect(AssetTable.summary.columns.map(\.heading.header) == ["ID", "TYPE", "DATE", "PIXELS", "SIZE", "DURATION", "CAMERA", "FILE"])
        let library = NSTemporaryDirectory() + "mediaindex-fields-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: library) }
        #expect(await mediaindex(["index", Corpus.media!.path + "/ianare-exif-samples/jpg"], library: library).code == 0)
        let reference = try #require(Corpus.exiftool[Self.relative])
        let path = Corpus.media!.path + "/" + Self.relative
        let table = await mediaindex(["assets", "--sort", "fileName", "--limit", "500"], library: library, width: 400)
        let row = try #require(table.out.split(separator: "\n").first { $0.hasSuffix(path) })
        // exiftool's `2008:05:30 15:56:01` as the table writes a floating time: to the minute, no offset.
        let taken = try #require(reference["ExifIFD:DateTimeOriginal"]?.string)
        let date = taken.prefix(10).replacingOccurrences(of: ":", with: "-") + " " + taken.dropFirst(11).prefix(5)
        let pixels = "\(reference["File:ImageWidth"]?.string ?? "?")×\(reference["File:ImageHeight"]?.string ?? "?")"
        let size = HumanReadable.byteCount(Int64(reference["System:FileSize"]?.number ?? -1))
        let cells = row.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(Array(cells.dropFirst()) == ["image", date, pixels, size, reference["IFD0:Model"]?.string ?? "?", path])
        // The same assets with --fields id: the summary's ids, in the same order.
        let ids = await mediaindex(["assets", "--sort", "fileName", "--limit", "500", "--fields", "id"], library: library, width: 400)
        let chosen: [String] = ids.out.split(separator: "\n").dropFirst().map(String.init)
        let summarised: [String] = table.out.split(separator: "\n").dropFirst().map { line in
            String(line.prefix { $0 != " " })
        }
        #expect(chosen == summarised && chosen.count > 20)
    }

    @Test("an unknown name, --count and --suggest are usage errors, the name's with a suggestion and no list")
    func refusals() async {
        let folder = NSTemporaryDirectory() + "mediaindex-fields-" + UUID().uuidString
        for arguments in [["assets", "--fields", "creatoinDate"], ["search", "beach", "--fields", "id,creatoinDate"],
                          ["show", "x", "--json", "--fields", "creatoinDate"]] {
            let refused = await mediaindex(arguments, folder: folder)
            #expect(refused.code == 64, "\(arguments)")
            let sentence = refused.err.split(separator: "\n").first
            #expect(sentence == "Error: --fields: unknown field 'creatoinDate'; did you mean 'creationDate'?", "\(arguments)")
            #expect(!refused.err.contains("mediaType"), "\(arguments): listed the fields")
        }
        #expect(await mediaindex(["assets", "--fields", "id", "--count"], folder: folder).code == 64)
        #expect(await mediaindex(["search", "be", "--suggest", "--fields", "id"], folder: folder).code == 64)
        #expect(!FileManager.default.fileExists(atPath: folder + "/library"))
    }
}
