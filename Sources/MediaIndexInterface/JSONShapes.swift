import Foundation
import MediaIndex
import MediaMetadata

/// The JSON shapes the CLI prints and the HTTP API serves. Names are stable: later versions add
/// fields, never rename.
public enum JSONShapes {
    /// An asset, as `show --json` prints it: the field table's fields
    /// (`AssetFields.all`), in its order.
    /// With `fields` (`--fields`, `fields=`), only those keys, each written even when empty.
    public static func asset(_ a: Asset, fields: AssetFieldSelection? = nil) -> JSON {
        .object(AssetFields.all.compactMap { declaration in
            if let fields, !fields.contains(declaration.field) { return nil }
            let value = declaration.value(a)
            if fields == nil, declaration.omittedWhenEmpty, case .null = value { return nil }
            return (declaration.field.rawValue, JSON(value))
        })
    }

    /// One field of an asset as the asset shape writes it (a cell of the `--fields` table).
    package static func field(_ field: Asset.Field, of a: Asset) -> JSON {
        AssetFields.byField[field].map { JSON($0.value(a)) } ?? .null
    }

    /// One resource of an asset: role, path, size, content type.
    public static func resource(_ r: AssetResource) -> JSON {
        JSON(r.fieldValue)
    }

    /// An index run's summary, as `index --json` prints it.
    public static func summary(_ s: IndexSummary) -> JSON {
        guard case .object(var members) = summaryCounts(s) else { return .null }
        // Only when places are off: the sentence saying so and what to run.
        if let placesOff = s.placesOff { members.append(("placesOff", .string(placesOff))) }
        return .object(members)
    }

    private static func summaryCounts(_ s: IndexSummary) -> JSON {
        .object([
            ("scanned", .int(s.scanned)), ("added", .int(s.added)), ("updated", .int(s.updated)),
            ("moved", .int(s.moved)), ("removed", .int(s.removed)), ("unchanged", .int(s.unchanged)),
            ("failed", .int(s.failed)), ("skipped", .int(s.skipped)), ("opened", .int(s.opened)),
            ("unreadableFolders", .int(s.unreadableFolders)), ("elapsedSeconds", .double(s.elapsedSeconds)),
            ("paired", .int(s.paired)), ("unpaired", .int(s.unpaired)), ("otherNames", .int(s.otherNames)),
            ("skippedFiles", .array(s.specialFiles.map { file in
                var members: [(String, JSON)] = [("path", .string(file.path.displayString)), ("reason", .string(file.reason))]
                if !file.path.isValidUTF8 {
                    members.append(("pathBase64", .string(Data(file.path.bytes).base64EncodedString())))
                }
                return .object(members)
            })),
            ("timings", .object([
                ("walk", .double(s.timings.walk)), ("diff", .double(s.timings.diff)), ("read", .double(s.timings.read)),
                ("write", .double(s.timings.write)), ("pair", .double(s.timings.pair)),
                ("finish", .double(s.timings.finish)),
            ])),
        ])
    }

    /// A file that could not be read, as `errors --json` lists it.
    public static func error(_ e: IndexedFileError) -> JSON {
        var members: [(String, JSON)] = [("path", .string(e.path.displayString)), ("message", .string(e.message)),
                                         ("bytes", .int(Int(e.bytes))), ("recordedAt", .string(isoUTC(e.recordedDate)))]
        if !e.path.isValidUTF8 { members.append(("pathBase64", .string(Data(e.path.bytes).base64EncodedString()))) }
        return .object(members)
    }

    /// A file read with warnings, as `errors --warnings --json` lists it.
    public static func warning(_ w: IndexedFileWarning) -> JSON {
        var members: [(String, JSON)] = [("path", .string(w.path.displayString)), ("warnings", .array(w.messages.map(JSON.string))),
                                         ("bytes", .int(Int(w.bytes))), ("recordedAt", .string(isoUTC(w.recordedDate)))]
        if !w.path.isValidUTF8 { members.append(("pathBase64", .string(Data(w.path.bytes).base64EncodedString()))) }
        return .object(members)
    }

    /// An album, as `albums --json` lists it.
    public static func album(_ album: Album) -> JSON {
        var members: [(String, JSON)] = [
            ("id", .string(album.id.description)), ("kind", .string(album.kind.rawValue)), ("title", .string(album.title)),
            ("path", album.path.map { .string($0.displayString) } ?? .null),
            ("parentId", album.parentID.map { .string($0.description) } ?? .null),
            ("count", .int(album.count)), ("imageCount", .int(album.imageCount)), ("videoCount", .int(album.videoCount)),
            ("countWithSubfolders", .int(album.countWithSubfolders)),
            ("imageCountWithSubfolders", .int(album.imageCountWithSubfolders)),
            ("videoCountWithSubfolders", .int(album.videoCountWithSubfolders)),
            ("keyAssetId", album.keyAssetID.map { .string($0.description) } ?? .null),
            ("startDate", album.startDate.map { .string(isoUTC($0)) } ?? .null),
            ("endDate", album.endDate.map { .string(isoUTC($0)) } ?? .null),
            ("startDay", album.startDay.map { .string($0) } ?? .null),
            ("endDay", album.endDay.map { .string($0) } ?? .null),
        ]
        if let path = album.path, !path.isValidUTF8 {
            members.append(("pathBase64", .string(Data(path.bytes).base64EncodedString())))
        }
        return .object(members)
    }

    /// `{"made": …, "cached": …, "failed": …, "needsFFmpeg": …, "elapsedSeconds": …}`.
    public static func thumbnailSummary(_ s: ThumbnailBuildSummary) -> JSON {
        .object([("made", .int(s.made)), ("cached", .int(s.cached)), ("failed", .int(s.failed)),
                 ("needsFFmpeg", .int(s.needsFFmpeg)), ("elapsedSeconds", .double(s.elapsedSeconds))])
    }

    /// A page of assets, as `assets --json` prints it: `{"assets": [...], "nextCursor": ...}`.
    /// With `fields`, each asset holds only those keys.
    public static func assetPage(_ assets: [Asset], nextCursor: String?, fields: AssetFieldSelection? = nil) -> JSON {
        .object([("assets", .array(assets.map { asset($0, fields: fields) })),
                 ("nextCursor", nextCursor.map(JSON.string) ?? .null)])
    }

    /// Counts by media type, as `assets --count --json` prints them.
    public static func counts(_ counts: AssetCounts) -> JSON {
        .object([("images", .int(counts.images)), ("videos", .int(counts.videos)), ("total", .int(counts.total))])
    }

    /// The change feed after a token, as `changes --json` prints it.
    public static func changes(_ result: AssetChanges) -> JSON {
        .object([
            ("changes", .array(result.changes.map { change in
                .object([("token", .int(Int(change.token.rawValue))), ("id", .string(change.id.description)),
                         ("kind", .string(change.kind.rawValue)), ("fields", .array(change.fields.map { .string($0.rawValue) })),
                         ("date", .string(isoUTC(change.date)))])
            })),
            ("currentToken", .int(Int(result.currentToken.rawValue))),
        ])
    }

    /// A moment as ISO 8601 UTC to the millisecond (`2026-11-29T14:27:54.093Z`).
    /// The milliseconds are counted as an integer: a `Double`'s fraction of a second
    /// carries binary noise (`.594000101`).
    public static func isoUTC(_ date: Date) -> String {
        let time = date.timeIntervalSince1970
        guard time.isFinite, abs(time) < 1e14 else { return CaptureDate(timestamp: 0, utcOffsetSeconds: 0).iso8601 }
        let milliseconds = Int64((time * 1000).rounded())
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        var date = CaptureDate(timestamp: Double(seconds), utcOffsetSeconds: 0)
        date.nanosecond = Int(milliseconds - seconds * 1000) * 1_000_000
        return date.iso8601
    }
}

extension JSON {
    /// A value of the asset shape as JSON; a moment is ISO 8601 UTC to the millisecond.
    init(_ value: Asset.FieldValue) {
        switch value {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .date(let date): self = .string(JSONShapes.isoUTC(date))
        case .array(let elements): self = .array(elements.map { JSON($0) })
        case .object(let members): self = .object(members.map { ($0.0, JSON($0.1)) })
        }
    }
}
