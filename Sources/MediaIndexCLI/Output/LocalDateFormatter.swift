import Foundation
import MediaIndex
import MediaMetadata

/// Shows the library's ISO 8601 capture dates as `2023-11-01 15:11`.
///
/// A date with an offset (`2023-11-01T15:11:17.049+01:00`, `…Z`) is an instant and is
/// shown in the given time zone (the machine's, by default). A date without one is a
/// floating local time: the camera's clock, time zone unknown; it is shown as written,
/// unconverted. Text that is not such a date comes back unchanged.
public struct LocalDateFormatter: Sendable {
    /// The zone instants are shown in.
    public var timeZone: TimeZone
    /// Whether to show `:ss` after the minutes.
    public var includesSeconds: Bool

    /// A formatter for `timeZone` (the machine's by default).
    public init(timeZone: TimeZone = .current, includesSeconds: Bool = false) {
        self.timeZone = timeZone
        self.includesSeconds = includesSeconds
    }

    /// `2023-11-01 15:11` for an ISO 8601 date-time; the input itself when it is not one.
    public func string(fromISO8601 text: String) -> String {
        guard let parsed = Self.parse(text) else { return text }
        var civil = parsed.civil
        if let offset = parsed.utcOffsetSeconds {
            civil.utcOffsetSeconds = offset
            let instant = civil.sortTimestamp
            let localOffset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: instant))
            civil = CaptureDate(timestamp: instant, utcOffsetSeconds: localOffset)
        }
        var result = "\(civil.year.paddedYear)-\(HumanReadable.twoDigits(civil.month))-\(HumanReadable.twoDigits(civil.day))"
        result += " \(HumanReadable.twoDigits(civil.hour)):\(HumanReadable.twoDigits(civil.minute))"
        if includesSeconds { result += ":\(HumanReadable.twoDigits(civil.second))" }
        return result
    }

    /// A capture date as the camera's clock read it, as Photos shows it:
    /// `2023-11-01 15:11 +01:00` for `2023-11-01T15:11:17.049+01:00`, `… UTC` for a
    /// date recorded in UTC (`…Z`: videos), no suffix for a floating local time. Never
    /// converted to the viewer's zone: a 09:12 photo from New York reads 09:12
    /// everywhere. Text that is not such a date comes back unchanged.
    public func string(asRecorded text: String) -> String {
        guard let parsed = Self.parse(text) else { return text }
        return recorded(parsed.civil, offset: parsed.utcOffsetSeconds, inUTC: text.hasSuffix("Z") || text.hasSuffix("z"))
    }

    /// An asset's capture time as `string(asRecorded:)` shows its text, from the value.
    public func string(asRecorded time: CaptureTime) -> String {
        let wall = time.dateComponents
        let civil = CaptureDate(year: wall.year ?? 0, month: wall.month ?? 1, day: wall.day ?? 1, hour: wall.hour ?? 0,
                                minute: wall.minute ?? 0, second: wall.second ?? 0)
        return recorded(civil, offset: time.utcOffsetSeconds, inUTC: time.utcOffsetSeconds == 0)
    }

    private func recorded(_ civil: CaptureDate, offset: Int?, inUTC: Bool) -> String {
        var result = "\(civil.year.paddedYear)-\(HumanReadable.twoDigits(civil.month))-\(HumanReadable.twoDigits(civil.day))"
        result += " \(HumanReadable.twoDigits(civil.hour)):\(HumanReadable.twoDigits(civil.minute))"
        if includesSeconds { result += ":\(HumanReadable.twoDigits(civil.second))" }
        if let offset {
            if offset == 0 && inUTC {
                result += " UTC"
            } else {
                let minutes = abs(offset) / 60
                result += " " + (offset < 0 ? "-" : "+") + HumanReadable.twoDigits(minutes / 60) + ":"
                    + HumanReadable.twoDigits(minutes % 60)
            }
        }
        return result
    }

    /// Reads `YYYY-MM-DD[T ]HH:MM[:SS[.fraction]][Z|±HH:MM|±HHMM|±HH]`.
    static func parse(_ text: String) -> (civil: CaptureDate, utcOffsetSeconds: Int?)? {
        let bytes = Array(text.utf8)
        var position = 0
        func number(_ digits: Int) -> Int? {
            guard position + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<(position + digits)] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            position += digits
            return value
        }
        func skip(_ character: Character) -> Bool {
            guard position < bytes.count, let ascii = character.asciiValue, bytes[position] == ascii else { return false }
            position += 1
            return true
        }
        guard let year = number(4), skip("-"), let month = number(2), skip("-"), let day = number(2),
              skip("T") || skip(" "),
              let hour = number(2), skip(":"), let minute = number(2)
        else { return nil }
        var second = 0
        if skip(":") {
            guard let value = number(2) else { return nil }
            second = value
            if skip(".") || skip(",") {
                while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                    position += 1
                }
            }
        }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        let civil = CaptureDate(year: year, month: month, day: day, hour: hour, minute: minute, second: min(second, 59))
        if position == bytes.count { return (civil, nil) }
        if skip("Z") || skip("z") { return position == bytes.count ? (civil, 0) : nil }
        let sign: Int
        if skip("+") { sign = 1 } else if skip("-") { sign = -1 } else { return nil }
        guard let offsetHours = number(2) else { return nil }
        var offsetMinutes = 0
        if position < bytes.count {
            _ = skip(":")
            guard let value = number(2) else { return nil }
            offsetMinutes = value
        }
        guard position == bytes.count, offsetHours < 24, offsetMinutes < 60 else { return nil }
        return (civil, sign * (offsetHours * 3600 + offsetMinutes * 60))
    }
}

private extension Int {
    var paddedYear: String {
        let digits = String(self)
        return self >= 0 && digits.count < 4 ? String(repeating: "0", count: 4 - digits.count) + digits : digits
    }
}
