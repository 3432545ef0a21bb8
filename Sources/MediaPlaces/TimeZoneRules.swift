import Foundation

/// UTC offsets of IANA zones at an instant, from tzdata's rules (daylight saving included), as
/// Foundation reads them from `/usr/share/zoneinfo`. Zones are loaded once and kept.
public enum TimeZoneRules {
    private static let cache = ZoneCache()

    /// The zone's offset from UTC at the instant, in seconds, or nil when tzdata does not know the zone.
    public static func secondsFromUTC(zone: String, at instant: Date) -> Int? {
        cache.zone(named: zone)?.secondsFromGMT(for: instant)
    }

    /// `+09:00`, `-03:30`, `+00:00`: an offset in seconds written as ISO 8601 does.
    public static func offsetText(seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        return sign + String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }

    private final class ZoneCache: @unchecked Sendable {
        // @unchecked: every access to `zones` holds `lock`.
        private let lock = NSLock()
        private var zones: [String: TimeZone?] = [:]

        func zone(named name: String) -> TimeZone? {
            lock.lock()
            defer { lock.unlock() }
            if let known = zones[name] { return known }
            let zone = TimeZone(identifier: name)
            zones[name] = zone
            return zone
        }
    }
}
