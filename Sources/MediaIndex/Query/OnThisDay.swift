import Foundation

/// Apple Photos' "On This Day": the assets taken on a month and day in the years before
/// this one, by the camera's calendar day (the asset's day, `capture_day`), not UTC.
///
/// In a year without 29 February, 28 February shows the assets of 29 February too.
public struct OnThisDay: Sendable, Hashable, CustomStringConvertible {
    /// The month, 1…12.
    public let month: Int
    /// The day of the month, 1…31.
    public let day: Int
    /// The current year: only assets of earlier years match.
    public let year: Int

    /// Today's month and day on the machine's calendar (`timeZone`, the local zone by default).
    public init(today now: Date = Date(), timeZone: TimeZone = .current) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: now)
        self.init(validMonth: parts.month ?? 1, day: parts.day ?? 1, year: parts.year ?? 1970)
    }

    /// `MM-DD` (a day that some year has: `02-29` is one) or `today`; nil for anything else.
    /// The years before the current one (of `now` in `timeZone`) match.
    public init?(_ text: String, now: Date = Date(), timeZone: TimeZone = .current) {
        let today = OnThisDay(today: now, timeZone: timeZone)
        if text.lowercased() == "today" { self = today; return }
        let bytes = Array(text.utf8)
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard bytes.count == 5, bytes[2] == UInt8(ascii: "-"),
              [0, 1, 3, 4].allSatisfy({ digits.contains(bytes[$0]) }),
              let month = Int(text.prefix(2)), let day = Int(text.suffix(2)),
              (1...12).contains(month), (1...Self.longestMonth[month - 1]).contains(day) else { return nil }
        self.init(validMonth: month, day: day, year: today.year)
    }

    private init(validMonth month: Int, day: Int, year: Int) {
        (self.month, self.day, self.year) = (month, day, year)
    }

    private static let longestMonth = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

    /// `MM-DD`.
    public var description: String {
        (month < 10 ? "0" : "") + String(month) + "-" + (day < 10 ? "0" : "") + String(day)
    }

    /// Whether `year` has 29 February.
    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    /// The month-days (`MM-DD`) that match: 28 February takes 29 February along in a year without it.
    var monthDays: [String] {
        month == 2 && day == 28 && !Self.isLeap(year) ? ["02-28", "02-29"] : [description]
    }
}

extension AssetQuery {
    /// The condition selecting `onThisDay`: the asset's day ends with the month-day and
    /// lies before the current year.
    static func onThisDayCondition(_ onThisDay: OnThisDay) -> SQLCondition {
        let days = onThisDay.monthDays
        let yearStart = String(format: "%04d", onThisDay.year)
        return SQLCondition(
            sql: "\(dayColumn) < ? AND substr(\(dayColumn), 6, 5) IN (\(days.map { _ in "?" }.joined(separator: ", ")))",
            values: [yearStart] + days)
    }
}
