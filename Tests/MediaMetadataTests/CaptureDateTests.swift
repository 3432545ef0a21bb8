import Testing
@testable import MediaMetadata

@Suite("CaptureDate: civil dates and UTC timestamps")
struct CaptureDateTests {
    @Test("civil dates convert to epoch seconds and back, before 1970 and across leap days too")
    func civilRoundTrip() {
        // 2000-02-29 00:00 UTC is 951,782,400 s; 0001-01-01 00:00 UTC is -62,135,596,800 s.
        for seconds in [0, 951_782_400, -86_401, 1_698_851_477, -62_135_596_800] {
            let date = CaptureDate(timestamp: Double(seconds), utcOffsetSeconds: nil)
            #expect(date.sortTimestamp == Double(seconds))
        }
        #expect(CaptureDate(timestamp: 951_782_400, utcOffsetSeconds: nil)
            == CaptureDate(year: 2000, month: 2, day: 29, hour: 0, minute: 0, second: 0))
        #expect(CaptureDate(timestamp: -62_135_596_800, utcOffsetSeconds: nil)
            == CaptureDate(year: 1, month: 1, day: 1, hour: 0, minute: 0, second: 0))
    }

    @Test("a timestamp with an offset gives the wall clock of that offset, and sorts as the same instant")
    func offsetWallClock() {
        // 2023-11-01T14:11:17Z is 1,698,847,877 s; at +01:00 the clock reads 15:11:17.
        let date = CaptureDate(timestamp: 1_698_847_877, utcOffsetSeconds: 3600)
        #expect(date == CaptureDate(year: 2023, month: 11, day: 1, hour: 15, minute: 11, second: 17,
                                    utcOffsetSeconds: 3600))
        #expect(date.sortTimestamp == 1_698_847_877)
        #expect(date.iso8601 == "2023-11-01T15:11:17+01:00")
    }

    @Test("ISO 8601 text shows sub-seconds only when recorded, to milliseconds or finer as needed")
    func iso8601Fractions() {
        func text(_ nanosecond: Int, offset: Int? = nil) -> String {
            CaptureDate(year: 2023, month: 7, day: 4, hour: 9, minute: 5, second: 7, nanosecond: nanosecond,
                        utcOffsetSeconds: offset).iso8601
        }
        #expect(text(0) == "2023-07-04T09:05:07")
        #expect(text(250_000_000, offset: 0) == "2023-07-04T09:05:07.250Z")
        #expect(text(123_456_789, offset: -34_200) == "2023-07-04T09:05:07.123456789-09:30")
        #expect(text(1_000, offset: 19_800) == "2023-07-04T09:05:07.000001+05:30")
        #expect(CaptureDate(year: 812, month: 1, day: 1, hour: 0, minute: 0, second: 0).iso8601 == "0812-01-01T00:00:00")
    }
}
