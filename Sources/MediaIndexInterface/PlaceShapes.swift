import Foundation
import MediaPlaces

extension JSON {
    /// The `place` object: `name`, `locality`, `subregion`, `region`, `regionCode`, `country`,
    /// `countryCode`, `geonameId`; empty fields left out.
    public static func place(_ place: Place) -> JSON {
        var members: [(String, JSON)] = [("name", .string(place.name))]
        let optional: [(String, String?)] = [
            ("locality", place.locality), ("subregion", place.subregion), ("region", place.region),
            ("regionCode", place.regionCode), ("country", place.country), ("countryCode", place.countryCode),
        ]
        members += optional.compactMap { key, value in value.map { (key, .string($0)) } }
        if let id = place.geonameId { members.append(("geonameId", .int(id))) }
        return .object(members)
    }

    /// One answer of `mediaindex place`: position, place, zone, and the UTC offset at the instant.
    public static func placeAnswer(_ answer: PlaceAnswer) -> JSON {
        var members: [(String, JSON)] = [
            ("latitude", .double(answer.query.coordinate.latitude)),
            ("longitude", .double(answer.query.coordinate.longitude)),
            ("place", place(answer.lookup.place)),
        ]
        if answer.lookup.atSea { members.append(("atSea", .bool(true))) }
        if let zone = answer.lookup.timeZone { members.append(("timeZone", .string(zone))) }
        if let offset = answer.utcOffsetSeconds {
            members.append(("utcOffset", .string(TimeZoneRules.offsetText(seconds: offset))))
            members.append(("at", .string(Self.instantText(answer.instant, offsetSeconds: offset))))
        }
        return .object(members)
    }

    /// An instant written with an offset: `2023-07-01T23:30:00+09:00`.
    public static func instantText(_ instant: Date, offsetSeconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(secondsFromGMT: offsetSeconds)
        formatter.formatOptions = [.withInternetDateTime]
        var text = formatter.string(from: instant)
        if offsetSeconds == 0, text.hasSuffix("Z") { text = String(text.dropLast()) + "+00:00" }
        return text
    }
}
