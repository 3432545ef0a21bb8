import Foundation
import MediaMetadata

/// When an asset was captured: the instant, with the UTC offset the capture time was
/// written with (PHAsset's `creationDate`, plus the offset PhotoKit keeps to itself).
/// Read once from the index, where the field enters the asset; the JSON's `creationDate`
/// text is written from it, never read back.
public struct CaptureTime: Sendable, Hashable {
    /// The moment of capture. When the file records only the local time (`utcOffsetSeconds`
    /// is nil), that wall-clock time is read as UTC: the same instant sorting and
    /// `FetchOptions.capturedFrom` use.
    public var date: Date { Date(timeIntervalSince1970: wallClock.sortTimestamp) }
    /// The offset from UTC in seconds the time was written with; nil when only the local
    /// time is known (a floating time).
    public var utcOffsetSeconds: Int? { wallClock.utcOffsetSeconds }
    /// The offset of the camera's local time from UTC in seconds, as the index resolved it
    /// (the file's, or one the place, GPS time, neighbouring assets or the user gave: see
    /// `Asset.captureOffsetSource`); the JSON's `captureOffset`. Nil when no rule knows it,
    /// also for a clock recorded in UTC (a movie header's `…Z`) whose local offset is unknown.
    public internal(set) var offsetSeconds: Int?
    /// The offset as a fixed-offset time zone; nil for a floating time.
    public var timeZone: TimeZone? { utcOffsetSeconds.flatMap { TimeZone(secondsFromGMT: $0) } }
    /// The camera's wall-clock time (Gregorian calendar, year to nanosecond), with
    /// `timeZone` set when the offset is known.
    public var dateComponents: DateComponents {
        DateComponents(calendar: Calendar(identifier: .gregorian), timeZone: timeZone,
                       year: wallClock.year, month: wallClock.month, day: wallClock.day, hour: wallClock.hour,
                       minute: wallClock.minute, second: wallClock.second, nanosecond: wallClock.nanosecond)
    }
    /// ISO 8601 as the JSON writes it: the offset when known, `Z` for UTC, no suffix for a
    /// floating time.
    public var iso8601: String { wallClock.iso8601 }

    /// The wall clock with its offset, as recorded.
    let wallClock: CaptureDate

    init(_ wallClock: CaptureDate) { self.wallClock = wallClock }
}
