import Foundation

/// Where a capture time's UTC offset came from, as assets record it.
public enum CaptureOffsetSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// An explicit offset tag: `OffsetTimeOriginal`, the XMP date's own offset, QuickTime's
    /// `com.apple.quicktime.creationdate`, a sidecar.
    case exif
    /// GPS time (UTC) against the camera's clock, the difference a whole quarter hour within 2 minutes.
    case gpsTime = "gps-time"
    /// The time zone of the GPS position, with tzdata's rules for that instant.
    case place
    /// A guess: every asset with a known offset whose clock lies within 2 hours agrees on it.
    case neighbour
    /// Set by the user (user state).
    case user
    /// Unknown: the time stays floating and is shown without an offset.
    case none
}

/// What one asset recorded about its capture time: the inputs of `LocalTime.resolve`.
public struct CaptureClock: Sendable, Hashable {
    /// The time as recorded, as seconds since 1970 read as if the clock were UTC: the camera's wall
    /// clock, or for a clock that records UTC (most videos) the instant itself.
    public var recordedSeconds: Double
    /// Whether `recordedSeconds` is UTC (QuickTime's `mvhd` creation time) rather than a wall clock.
    public var recordedInUTC: Bool
    /// An explicit offset recorded with the time, in seconds.
    public var recordedOffset: Int?
    /// The GPS receiver's UTC time of the fix, when the file has one.
    public var gpsInstant: Date?
    /// The GPS position, already checked (0,0 and out-of-range positions are none).
    public var coordinate: Coordinate?
    /// A user's setting (user state): a fixed offset, or a zone whose rules give it.
    public var userSetting: UserTimeSetting?

    public init(recordedSeconds: Double, recordedInUTC: Bool = false, recordedOffset: Int? = nil,
                gpsInstant: Date? = nil, coordinate: Coordinate? = nil, userSetting: UserTimeSetting? = nil) {
        self.recordedSeconds = recordedSeconds
        self.recordedInUTC = recordedInUTC
        self.recordedOffset = recordedOffset
        self.gpsInstant = gpsInstant
        self.coordinate = coordinate
        self.userSetting = userSetting
    }
}

/// "Adjust date and time": the offset or zone a user set for an asset.
public enum UserTimeSetting: Sendable, Hashable {
    case offset(seconds: Int)
    case zone(String)
}

/// A capture time resolved: its instant, its offset and where the offset came from.
public struct ResolvedCaptureTime: Sendable, Hashable {
    /// The true instant, for sorting; for a floating time, its wall clock read as UTC.
    public var instant: Date
    /// The offset from UTC, in seconds, or nil for a floating time.
    public var offsetSeconds: Int?
    public var source: CaptureOffsetSource
    /// The zone whose rules gave the offset (source `place`, or a user's zone).
    public var timeZone: String?

    /// The local wall clock as seconds since 1970 read as UTC: what days and months are taken from.
    public var wallClockSeconds: Double { instant.timeIntervalSince1970 + Double(offsetSeconds ?? 0) }

    /// The local calendar day, `2023-07-01`: the camera's day.
    public var localDay: String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: wallClockSeconds))
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}

/// Resolves capture-time offsets in the order of issue 31: user, explicit offset, GPS time against the
/// camera clock, the zone of the GPS position, agreeing neighbours within 2 hours, else floating.
public struct LocalTime: Sendable {
    /// The GPS-minus-clock difference must lie this close to a whole quarter hour.
    public static let gpsTolerance: Double = 120
    /// Neighbours count within this distance of clock times.
    public static let neighbourWindow: Double = 2 * 3600
    /// Offsets beyond this are no real zone's (tzdata spans −12:00…+14:00).
    static let largestOffset = 14 * 3600

    /// The zone lookup for step 3; nil when places are off (then step 3 never applies).
    public var zoneOf: (@Sendable (Coordinate) -> String?)?

    public init(places: PlacesData?) {
        if let places {
            zoneOf = { coordinate in places.timeZone(coordinate) }
        } else {
            zoneOf = nil
        }
    }

    public init(zoneOf: (@Sendable (Coordinate) -> String?)?) {
        self.zoneOf = zoneOf
    }

    /// Resolves each clock on its own, then lets those still without an offset learn from neighbours.
    public func resolve(_ clocks: [CaptureClock]) -> [ResolvedCaptureTime] {
        let alone = clocks.map(resolveAlone)
        return Self.learnFromNeighbours(clocks: clocks, resolved: alone)
    }

    /// Steps 1–3 and 5 for one clock (the user's setting first, as it overrides all).
    public func resolveAlone(_ clock: CaptureClock) -> ResolvedCaptureTime {
        if let setting = clock.userSetting { return Self.resolve(clock, setting: setting) }
        if let offset = clock.recordedOffset, abs(offset) <= Self.largestOffset {
            return Self.fixed(clock, offset: offset, source: .exif)
        }
        if !clock.recordedInUTC, let gps = clock.gpsInstant, let offset = Self.gpsOffset(clock: clock.recordedSeconds, gps: gps) {
            return Self.fixed(clock, offset: offset, source: .gpsTime)
        }
        if let coordinate = clock.coordinate, let zone = zoneOf?(coordinate),
           let resolved = Self.inZone(clock, zone: zone, source: .place) {
            return resolved
        }
        return Self.floating(clock)
    }

    /// The difference GPS − clock rounded to a whole quarter hour, when it lies within 2 minutes of one.
    public static func gpsOffset(clock: Double, gps: Date) -> Int? {
        let difference = clock - gps.timeIntervalSince1970
        let quarters = (difference / 900).rounded()
        guard abs(difference - quarters * 900) <= gpsTolerance, abs(quarters * 900) <= Double(largestOffset) else {
            return nil
        }
        return Int(quarters) * 900
    }

    /// The instant of a wall-clock time in a zone, daylight saving included (in a repeated hour, the first).
    public static func instant(wallClock: Double, zone: String) -> Date? {
        guard let first = TimeZoneRules.secondsFromUTC(zone: zone, at: Date(timeIntervalSince1970: wallClock)) else {
            return nil
        }
        let guess = Date(timeIntervalSince1970: wallClock - Double(first))
        guard let second = TimeZoneRules.secondsFromUTC(zone: zone, at: guess) else { return nil }
        return Date(timeIntervalSince1970: wallClock - Double(second))
    }

    private static func resolve(_ clock: CaptureClock, setting: UserTimeSetting) -> ResolvedCaptureTime {
        switch setting {
        case .offset(let seconds): return fixed(clock, offset: seconds, source: .user)
        case .zone(let zone): return inZone(clock, zone: zone, source: .user) ?? floating(clock)
        }
    }

    static func fixed(_ clock: CaptureClock, offset: Int, source: CaptureOffsetSource) -> ResolvedCaptureTime {
        let instant = clock.recordedInUTC ? clock.recordedSeconds : clock.recordedSeconds - Double(offset)
        return ResolvedCaptureTime(instant: Date(timeIntervalSince1970: instant), offsetSeconds: offset,
                                   source: source, timeZone: nil)
    }

    private static func inZone(_ clock: CaptureClock, zone: String, source: CaptureOffsetSource) -> ResolvedCaptureTime? {
        let instant = clock.recordedInUTC
            ? Date(timeIntervalSince1970: clock.recordedSeconds)
            : self.instant(wallClock: clock.recordedSeconds, zone: zone)
        guard let instant, let offset = TimeZoneRules.secondsFromUTC(zone: zone, at: instant) else { return nil }
        return ResolvedCaptureTime(instant: instant, offsetSeconds: offset, source: source, timeZone: zone)
    }

    private static func floating(_ clock: CaptureClock) -> ResolvedCaptureTime {
        ResolvedCaptureTime(instant: Date(timeIntervalSince1970: clock.recordedSeconds), offsetSeconds: nil,
                            source: .none, timeZone: nil)
    }
}

extension LocalTime {
    /// Step 4: a clock still without an offset takes the offset every known one within 2 hours agrees
    /// on (wall clocks compared with wall clocks, UTC clocks with instants), recorded as `neighbour`.
    /// Guesses are not learned from.
    static func learnFromNeighbours(clocks: [CaptureClock], resolved: [ResolvedCaptureTime]) -> [ResolvedCaptureTime] {
        let known = resolved.filter { $0.offsetSeconds != nil && $0.source != .none }
        guard !known.isEmpty else { return resolved }
        let byWallClock = known.map { ($0.wallClockSeconds, $0.offsetSeconds ?? 0) }.sorted { $0.0 < $1.0 }
        let byInstant = known.map { ($0.instant.timeIntervalSince1970, $0.offsetSeconds ?? 0) }.sorted { $0.0 < $1.0 }
        var result = resolved
        for index in resolved.indices where resolved[index].source == .none {
            let clock = clocks[index]
            let table = clock.recordedInUTC ? byInstant : byWallClock
            guard let offset = agreedOffset(in: table, around: clock.recordedSeconds) else { continue }
            var learned = fixed(clock, offset: offset, source: .neighbour)
            learned.timeZone = nil
            result[index] = learned
        }
        return result
    }

    /// The one offset of the entries within the window around `time`, or nil when none or several.
    static func agreedOffset(in table: [(Double, Int)], around time: Double) -> Int? {
        var low = 0, high = table.count
        while low < high {
            let middle = (low + high) / 2
            if table[middle].0 < time - neighbourWindow { low = middle + 1 } else { high = middle }
        }
        var agreed: Int?
        var index = low
        while index < table.count, table[index].0 <= time + neighbourWindow {
            if let agreed, agreed != table[index].1 { return nil }
            agreed = table[index].1
            index += 1
        }
        return agreed
    }
}
