import Foundation
import MediaMetadata
import MediaPlaces

/// The places data indexing uses: read once per process from `PlacesData.defaultPath`
/// (`$MEDIAINDEX_PLACES_DATA`, else `~/.local/share/mediaindex/places.mip`), when a look-up
/// first needs them.
package enum IndexPlaces {
    /// The data, or nil when places are off. The first call maps and checks the file.
    package static var data: PlacesData? { opened.value.data }

    /// Why places are off, as one sentence with what to run; nil when they are on.
    ///
    /// Once the data are open (a look-up needed them), their opening's answer; before, the
    /// file's header alone (`PlacesData.checkHeader`), so a run that looks nothing up (an
    /// unchanged re-index) does not map and checksum 32 MB to say places are on. A file
    /// damaged past its header is then reported by the first run that needs a look-up.
    package static var offReason: String? {
        if let opened = opened.valueIfMade { return opened.reason }
        return offReason(headerOf: PlacesData.defaultPath)
    }

    /// Why the places file at `path` is off by its header alone; nil when the header is sound.
    static func offReason(headerOf path: String) -> String? {
        do {
            try PlacesData.checkHeader(path: path)
            return nil
        } catch {
            return sentence(error)
        }
    }

    private static let opened = MadeOnce<(data: PlacesData?, reason: String?)> {
        do {
            return (try PlacesData(path: PlacesData.defaultPath), nil)
        } catch {
            return (nil, sentence(error))
        }
    }

    private static func sentence(_ error: any Error) -> String {
        "Places are off: \(error) Run `mediaindex places install` (or `scripts/install-places-data` from the MediaIndex source) "
            + "to add them; the next index run then fills them in without reopening files."
    }
}

/// A value made by its first reader, which can also be asked whether it was made yet.
final class MadeOnce<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `made` is only read and written under `lock`; `make` is called under it once.
    private let lock = NSLock()
    private let make: @Sendable () -> Value
    private var made: Value?

    init(_ make: @escaping @Sendable () -> Value) { self.make = make }

    /// The value, made now if no one asked before.
    var value: Value {
        lock.withLock {
            if let made { return made }
            let value = make()
            made = value
            return value
        }
    }

    /// The value if it was made, else nil (it is not made now).
    var valueIfMade: Value? { lock.withLock { made } }
}

/// Where and when one asset was taken, as the index stores it: the place and zone of its
/// position, and its capture time resolved to an offset (`LocalTime`, issue 31's order).
/// The neighbour rule needs other assets and runs after an index run (`CaptureTimePass`).
struct CaptureResolution {
    /// The place and zone; nil without a position (0,0 alone is none) or without places data.
    var lookup: PlaceLookup?
    /// The resolved capture time; nil without a capture date.
    var time: ResolvedCaptureTime?
    /// The capture date as the asset shape writes it: with the resolved offset, or as recorded
    /// when the offset came from the file or is unknown.
    var creationDateText: String?

    /// - Parameters:
    ///   - places: asked only when the metadata hold a position.
    ///   - userTime: the user's setting ("adjust date and time"), which wins over every other rule.
    init(metadata: MediaMetadata, places: @autoclosure () -> PlacesData?, userTime: UserTimeSetting? = nil) {
        let coordinate = metadata.location.flatMap { try? Coordinate(latitude: $0.latitude, longitude: $0.longitude) }
        let lookup = coordinate.flatMap { point in places().map { $0.lookup(point) } }
        self.lookup = lookup
        guard let date = metadata.captureDate else { return }
        let inUTC = Self.recordsUTC(metadata.captureDateSource)
        let clock = CaptureClock(
            recordedSeconds: date.sortTimestamp + (inUTC ? 0 : Double(date.utcOffsetSeconds ?? 0)),
            recordedInUTC: inUTC, recordedOffset: inUTC ? nil : date.utcOffsetSeconds,
            gpsInstant: metadata.gpsTimestamp.map(Date.init(timeIntervalSince1970:)), coordinate: coordinate,
            userSetting: userTime)
        let zone = lookup?.timeZone
        let time = LocalTime(zoneOf: { _ in zone }).resolveAlone(clock)
        self.time = time
        creationDateText = Self.text(of: date, resolved: time)
    }

    /// Whether a capture date's source records UTC rather than the camera's wall clock: the
    /// movie header, Matroska's `DateUTC`, ASF, Lytro's zulu time, and a date with no source
    /// (Takeout's timestamp).
    static func recordsUTC(_ source: CaptureDateSource?) -> Bool {
        switch source {
        case .movieHeaderCreationTime, .matroskaDateUTC, .asfFileProperties, .lytroClockZuluTime, nil: return true
        default: return false
        }
    }

    /// The recorded date written with its resolved offset, its sub-seconds kept; as recorded
    /// when the file gave the offset or none is known.
    static func text(of date: CaptureDate, resolved time: ResolvedCaptureTime) -> String {
        guard let offset = time.offsetSeconds, time.source != .exif, time.source != .none else { return date.iso8601 }
        return text(instant: time.instant.timeIntervalSince1970, nanosecond: date.nanosecond, offset: offset)
    }

    /// An instant written in local time at `offset`, with the given sub-seconds.
    static func text(instant: Double, nanosecond: Int, offset: Int) -> String {
        let whole = (instant - Double(nanosecond) / 1e9).rounded()
        var local = CaptureDate(timestamp: whole, utcOffsetSeconds: offset)
        local.nanosecond = nanosecond
        return local.iso8601
    }

    /// The values of the place columns (`AssetRecord.Column.placeColumns`' order).
    var placeValues: [DatabaseValueConvertible] {
        let place = lookup?.place
        return [place?.name, place?.locality, place?.subregion, place?.region, place?.regionCode,
                place?.country, place?.countryCode, place?.geonameId]
    }

    /// `+09:00`, `-03:30`, `+00:00`.
    static func offsetText(_ seconds: Int) -> String {
        // Written digit by digit: `String(format:)` costs about 10 µs a call, once per asset of a page.
        let magnitude = abs(seconds)
        func twoDigits(_ value: Int) -> String { value < 10 ? "0" + String(value) : String(value) }
        return (seconds < 0 ? "-" : "+") + twoDigits(magnitude / 3600) + ":" + twoDigits(magnitude % 3600 / 60)
    }
}
