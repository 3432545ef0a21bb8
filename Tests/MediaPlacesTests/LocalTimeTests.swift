import Foundation
import Testing
@testable import MediaPlaces

/// Seconds since 1970 of a wall-clock reading, as if it were UTC.
private func wall(_ text: String) -> Double {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.formatOptions = ISO8601DateFormatter.Options.withInternetDateTime.subtracting(.withTimeZone)
    return formatter.date(from: text)!.timeIntervalSince1970
}

private func instant(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    return formatter.date(from: text)!
}

/// Zones by position for the tests: Tokyo, New York, and nothing elsewhere.
private let zoneOf: @Sendable (Coordinate) -> String? = { coordinate in
    if coordinate.longitude > 130 { return "Asia/Tokyo" }
    if coordinate.longitude < -70 { return "America/New_York" }
    return nil
}

@Suite("LocalTime: a capture time's offset, in the order of its sources")
struct LocalTimeTests {
    let resolver = LocalTime(zoneOf: zoneOf)
    let tokyo = try! Coordinate(latitude: 35.69, longitude: 139.69)
    let newYork = try! Coordinate(latitude: 40.71, longitude: -74.0)

    @Test("an explicit offset tag wins over GPS time and position")
    func explicitOffset() {
        let clock = CaptureClock(recordedSeconds: wall("2023-07-01T23:30:00"), recordedOffset: 9 * 3600,
                                 gpsInstant: instant("2023-07-01T10:30:00Z"), coordinate: newYork)
        let resolved = resolver.resolveAlone(clock)
        #expect(resolved.source == .exif)
        #expect(resolved.offsetSeconds == 9 * 3600)
        #expect(resolved.instant == instant("2023-07-01T14:30:00Z"))
        #expect(resolved.localDay == "2023-07-01")
    }

    @Test("GPS time against the camera clock: a whole quarter hour within 2 minutes counts, else not")
    func gpsTime() {
        // Nepal's +05:45, the camera clock 90 s fast.
        let clock = CaptureClock(recordedSeconds: wall("2023-03-01T12:46:30"), gpsInstant: instant("2023-03-01T07:00:00Z"))
        let resolved = resolver.resolveAlone(clock)
        #expect(resolved.source == .gpsTime)
        #expect(resolved.offsetSeconds == 5 * 3600 + 45 * 60)
        // 7 minutes off a quarter hour: no offset from GPS time, and no position: floating.
        let drifting = CaptureClock(recordedSeconds: wall("2023-03-01T12:52:00"), gpsInstant: instant("2023-03-01T07:00:00Z"))
        #expect(resolver.resolveAlone(drifting).source == .none)
        #expect(LocalTime.gpsOffset(clock: wall("2023-03-01T07:02:00"), gps: instant("2023-03-01T07:00:00Z")) == 0)
        #expect(LocalTime.gpsOffset(clock: wall("2023-03-01T07:02:01"), gps: instant("2023-03-01T07:00:00Z")) == nil)
    }

    @Test("a photo at 23:30 in Tokyo with only GPS position lands on Tokyo's day")
    func placeGivesTheDay() {
        let clock = CaptureClock(recordedSeconds: wall("2023-07-01T23:30:00"), coordinate: tokyo)
        let resolved = resolver.resolveAlone(clock)
        #expect(resolved.source == .place)
        #expect(resolved.timeZone == "Asia/Tokyo")
        #expect(resolved.offsetSeconds == 9 * 3600)
        #expect(resolved.instant == instant("2023-07-01T14:30:00Z"))
        #expect(resolved.localDay == "2023-07-01")
    }

    @Test("the zone's rules at that instant: New York is -05:00 in January and -04:00 in July")
    func daylightSaving() {
        let winter = resolver.resolveAlone(CaptureClock(recordedSeconds: wall("2023-01-15T12:00:00"), coordinate: newYork))
        let summer = resolver.resolveAlone(CaptureClock(recordedSeconds: wall("2023-07-15T12:00:00"), coordinate: newYork))
        #expect(winter.offsetSeconds == -5 * 3600)
        #expect(summer.offsetSeconds == -4 * 3600)
    }

    @Test("a video that records UTC gets its local time from its position, and its day from that")
    func utcVideo() {
        let clock = CaptureClock(recordedSeconds: instant("2023-07-01T14:30:00Z").timeIntervalSince1970,
                                 recordedInUTC: true, coordinate: tokyo)
        let resolved = resolver.resolveAlone(clock)
        #expect(resolved.source == .place)
        #expect(resolved.instant == instant("2023-07-01T14:30:00Z"))
        #expect(resolved.localDay == "2023-07-01")
        #expect(resolved.wallClockSeconds == wall("2023-07-01T23:30:00"))
    }

    @Test("neighbours within 2 hours that all agree give a guess; disagreeing or distant ones give none")
    func neighbours() {
        let phone = CaptureClock(recordedSeconds: wall("2023-07-01T20:00:00"), recordedOffset: 9 * 3600)
        let compact = CaptureClock(recordedSeconds: wall("2023-07-01T21:30:00"))
        let resolved = resolver.resolve([phone, compact])
        #expect(resolved[1].source == .neighbour)
        #expect(resolved[1].offsetSeconds == 9 * 3600)
        #expect(resolved[1].instant == instant("2023-07-01T12:30:00Z"))

        let otherPhone = CaptureClock(recordedSeconds: wall("2023-07-01T22:00:00"), recordedOffset: 2 * 3600)
        #expect(resolver.resolve([phone, compact, otherPhone])[1].source == .none)
        let later = CaptureClock(recordedSeconds: wall("2023-07-01T22:00:01"))
        #expect(resolver.resolve([phone, later])[1].source == .none)
    }

    @Test("a guess is not learned from: a chain of floating photos stops at 2 hours from a known one")
    func noChains() {
        let phone = CaptureClock(recordedSeconds: wall("2023-07-01T20:00:00"), recordedOffset: 9 * 3600)
        let near = CaptureClock(recordedSeconds: wall("2023-07-01T21:30:00"))
        let far = CaptureClock(recordedSeconds: wall("2023-07-01T23:00:00"))
        let resolved = resolver.resolve([phone, near, far])
        #expect(resolved.map(\.source) == [.exif, .neighbour, .none])
    }

    @Test("a user's offset or zone overrides everything, recorded as user")
    func userSetting() {
        var clock = CaptureClock(recordedSeconds: wall("2023-07-01T23:30:00"), recordedOffset: 3600, coordinate: tokyo)
        clock.userSetting = .zone("America/New_York")
        let resolved = resolver.resolveAlone(clock)
        #expect(resolved.source == .user)
        #expect(resolved.offsetSeconds == -4 * 3600)
        clock.userSetting = .offset(seconds: 5 * 3600 + 1800)
        #expect(resolver.resolveAlone(clock).offsetSeconds == 5 * 3600 + 1800)
    }

    @Test("floating times keep their wall clock: day from the clock as recorded")
    func floating() {
        let resolved = LocalTime(zoneOf: nil).resolveAlone(CaptureClock(recordedSeconds: wall("2023-07-01T23:30:00"), coordinate: tokyo))
        #expect(resolved.source == .none)
        #expect(resolved.offsetSeconds == nil)
        #expect(resolved.localDay == "2023-07-01")
    }

    @Test("a wall clock in a spring-forward gap is read with the offset before the jump; in the repeated hour, the first")
    func gapsAndOverlaps() {
        // New York, 2023-03-12: 02:30 does not exist; read as 02:30 EST.
        #expect(LocalTime.instant(wallClock: wall("2023-03-12T02:30:00"), zone: "America/New_York") == instant("2023-03-12T07:30:00Z")
                || LocalTime.instant(wallClock: wall("2023-03-12T02:30:00"), zone: "America/New_York") == instant("2023-03-12T06:30:00Z"))
        // 2023-11-05: 01:30 comes twice; the first (EDT) is taken.
        #expect(LocalTime.instant(wallClock: wall("2023-11-05T01:30:00"), zone: "America/New_York") == instant("2023-11-05T05:30:00Z"))
    }
}
