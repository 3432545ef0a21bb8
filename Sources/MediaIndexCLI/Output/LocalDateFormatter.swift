import Foundation

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
            let utcSeconds = civil.secondsSinceEpoch - Int64(offset)
            let localOffset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(utcSeconds)))
            civil = CivilTime(secondsSinceEpoch: utcSeconds + Int64(localOffset))
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
        let civil = parsed.civil
        var result = "\(civil.year.paddedYear)-\(HumanReadable.twoDigits(civil.month))-\(HumanReadable.twoDigits(civil.day))"
        result += " \(HumanReadable.twoDigits(civil.hour)):\(HumanReadable.twoDigits(civil.minute))"
        if includesSeconds { result += ":\(HumanReadable.twoDigits(civil.second))" }
        if let offset = parsed.utcOffsetSeconds {
            if offset == 0 && (text.hasSuffix("Z") || text.hasSuffix("z")) {
                result += " UTC"
            } else {
                let minutes = abs(offset) / 60
                result += " " + (offset < 0 ? "-" : "+") + HumanReadable.twoDigits(minutes / 60) + ":"
                    + HumanReadable.twoDigits(minutes % 60)
            }
        }
        return result
    }

    /// A wall-clock reading without a zone.
    struct CivilTime: Equatable {
        var year: Int64, month: Int, day: Int, hour: Int, minute: Int, second: Int

        init(year: Int64, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
            (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
        }

        /// Seconds since 1970-01-01 00:00 on this same clock (days from civil, Howard
        /// Hinnant's algorithm).
        var secondsSinceEpoch: Int64 {
            let y = month <= 2 ? year - 1 : year
            let era = (y >= 0 ? y : y - 399) / 400
            let yearOfEra = y - era * 400
            let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
            let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            let days = era * 146_097 + dayOfEra - 719_468
            return days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        }

        init(secondsSinceEpoch: Int64) {
            var days = secondsSinceEpoch / 86_400
            var rest = secondsSinceEpoch % 86_400
            if rest < 0 { rest += 86_400; days -= 1 }
            let z = days + 719_468
            let era = (z >= 0 ? z : z - 146_096) / 146_097
            let dayOfEra = z - era * 146_097
            let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let shiftedMonth = (5 * dayOfYear + 2) / 153
            let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
            let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
            self.init(
                year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: month, day: day,
                hour: Int(rest / 3600), minute: Int(rest / 60 % 60), second: Int(rest % 60)
            )
        }
    }

    /// Reads `YYYY-MM-DD[T ]HH:MM[:SS[.fraction]][Z|±HH:MM|±HHMM|±HH]`.
    static func parse(_ text: String) -> (civil: CivilTime, utcOffsetSeconds: Int?)? {
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
        let civil = CivilTime(year: Int64(year), month: month, day: day, hour: hour, minute: minute, second: min(second, 59))
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

private extension Int64 {
    var paddedYear: String {
        let digits = String(self)
        return self >= 0 && digits.count < 4 ? String(repeating: "0", count: 4 - digits.count) + digits : digits
    }
}
