import Foundation

/// One look-up as `mediaindex place` asks it: a position and, optionally, an instant.
public struct PlaceQuery: Sendable, Hashable {
    public var coordinate: Coordinate
    /// The instant to give the UTC offset at; a time written without an offset is read as the wall
    /// clock of the zone found there.
    public var at: QueryInstant?

    /// When `--at` or a line's third field says.
    public enum QueryInstant: Sendable, Hashable {
        /// An instant (the text had `Z` or an offset).
        case instant(Date)
        /// A wall-clock time with no offset, as seconds since 1970 read as if it were UTC.
        case wallClock(Double)
    }

    /// What went wrong with a line or an argument, as one sentence.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    public init(coordinate: Coordinate, at: QueryInstant? = nil) {
        self.coordinate = coordinate
        self.at = at
    }

    /// Parses `LAT,LON` or `LAT,LON,ISO8601`; `defaultInstant` applies when the text has no instant.
    /// - Throws: `ParseError` saying what is wrong with the text.
    public static func parse(_ text: String, defaultInstant: QueryInstant? = nil) throws(ParseError) -> PlaceQuery {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard fields.count == 2 || fields.count == 3 else {
            throw ParseError(description: "'\(text)' is not LAT,LON or LAT,LON,ISO8601 (decimal degrees).")
        }
        guard let latitude = Double(fields[0]), let longitude = Double(fields[1]) else {
            throw ParseError(description: "'\(fields[0]),\(fields[1])' is not a pair of decimal degrees.")
        }
        let coordinate: Coordinate
        do {
            coordinate = try Coordinate(latitude: latitude, longitude: longitude)
        } catch {
            throw ParseError(description: error.description)
        }
        guard fields.count == 3 else { return PlaceQuery(coordinate: coordinate, at: defaultInstant) }
        return PlaceQuery(coordinate: coordinate, at: try parseInstant(fields[2]))
    }

    /// `2023-07-01T23:30:00+09:00`, `…Z`, or `2023-07-01T23:30:00` (a wall clock), seconds' fractions allowed.
    /// - Throws: `ParseError` when the text is none of these.
    public static func parseInstant(_ text: String) throws(ParseError) -> QueryInstant {
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return .instant(date) }
        }
        formatter.timeZone = TimeZone(identifier: "UTC")
        for options: ISO8601DateFormatter.Options in [
            [.withFullDate, .withFullTime, .withDashSeparatorInDate, .withColonSeparatorInTime],
            [.withFullDate, .withFullTime, .withDashSeparatorInDate, .withColonSeparatorInTime, .withFractionalSeconds],
        ] {
            formatter.formatOptions = options.subtracting(.withTimeZone)
            if let date = formatter.date(from: text) { return .wallClock(date.timeIntervalSince1970) }
        }
        throw ParseError(description: "'\(text)' is not an ISO 8601 time such as 2023-07-01T23:30:00+09:00.")
    }
}

/// The answer to a `PlaceQuery`.
public struct PlaceAnswer: Sendable, Hashable {
    public var query: PlaceQuery
    public var lookup: PlaceLookup
    /// The instant the offset is given at (now when the query named none).
    public var instant: Date
    /// The zone's offset from UTC at `instant`, in seconds, when the zone is known to tzdata.
    public var utcOffsetSeconds: Int?
}

extension PlacesData {
    /// Answers a query: the place and zone, and the zone's UTC offset at the query's instant (now when
    /// it names none; a wall-clock time is first placed in the zone, daylight saving included).
    public func answer(_ query: PlaceQuery, now: Date = Date()) -> PlaceAnswer {
        let lookup = lookup(query.coordinate)
        let instant: Date
        switch query.at {
        case .instant(let date): instant = date
        case .wallClock(let seconds):
            instant = lookup.timeZone.flatMap { LocalTime.instant(wallClock: seconds, zone: $0) }
                ?? Date(timeIntervalSince1970: seconds)
        case nil: instant = now
        }
        let offset = lookup.timeZone.flatMap { TimeZoneRules.secondsFromUTC(zone: $0, at: instant) }
        return PlaceAnswer(query: query, lookup: lookup, instant: instant, utcOffsetSeconds: offset)
    }
}
