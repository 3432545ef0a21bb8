import Foundation
import Testing
@testable import MediaIndexCLI

@Suite("HumanReadable: sizes and durations")
struct HumanReadableTests {
    @Test("byte counts use SI decimal units, one decimal below ten", arguments: [
        (Int64(0), "0 B"), (999, "999 B"), (1000, "1.0 kB"), (1234, "1.2 kB"), (9949, "9.9 kB"),
        (9950, "10 kB"), (12_345, "12 kB"), (999_499, "999 kB"), (999_500, "1.0 MB"),
        (2_635_000, "2.6 MB"), (1_000_000_000, "1.0 GB"), (123_456_789_012, "123 GB"),
        (Int64.max, "9.2 EB"), (-1234, "-1.2 kB"),
    ])
    func byteCounts(bytes: Int64, expected: String) {
        #expect(HumanReadable.byteCount(bytes) == expected)
    }

    @Test("durations read like a clock, rounded to the second", arguments: [
        (0.0, "0:00"), (2.6, "0:03"), (59.4, "0:59"), (59.5, "1:00"), (605, "10:05"),
        (3723, "1:02:03"), (36_000, "10:00:00"), (-3, "-0:03"), (Double.nan, "--:--"), (Double.infinity, "--:--"),
    ])
    func durations(seconds: Double, expected: String) {
        #expect(HumanReadable.duration(seconds: seconds) == expected)
    }
}

@Suite("LocalDateFormatter: ISO 8601 dates in local time")
struct LocalDateFormatterTests {
    let paris = LocalDateFormatter(timeZone: TimeZone(identifier: "Europe/Paris") ?? .gmt)
    let newYork = LocalDateFormatter(timeZone: TimeZone(identifier: "America/New_York") ?? .gmt)

    @Test("an instant with an offset is shown in the formatter's time zone")
    func instants() {
        #expect(paris.string(fromISO8601: "2023-11-01T15:11:17.049+01:00") == "2023-11-01 15:11")
        #expect(newYork.string(fromISO8601: "2023-11-01T15:11:17.049+01:00") == "2023-11-01 10:11")
        #expect(paris.string(fromISO8601: "2023-07-14T22:30:00Z") == "2023-07-15 00:30")
        #expect(newYork.string(fromISO8601: "2024-03-01T01:00:00-0300") == "2024-02-29 23:00")
    }

    @Test("a floating time (no offset) is shown as written, whatever the zone")
    func floatingTimes() {
        #expect(paris.string(fromISO8601: "2019-06-30T23:59:58") == "2019-06-30 23:59")
        #expect(newYork.string(fromISO8601: "2019-06-30T23:59:58.5") == "2019-06-30 23:59")
    }

    @Test("seconds are shown on request; text that is not a date-time comes back unchanged")
    func secondsAndGarbage() {
        let withSeconds = LocalDateFormatter(timeZone: .gmt, includesSeconds: true)
        #expect(withSeconds.string(fromISO8601: "2023-11-01T15:11:17+01:00") == "2023-11-01 14:11:17")
        for text in ["", "2023-11-01", "2023-13-01T00:00:00", "yesterday", "2023-11-01T15:11:17+01:00junk"] {
            #expect(withSeconds.string(fromISO8601: text) == text)
        }
    }
}

@Suite("ProgressLine: one rewritten line on a terminal")
struct ProgressLineTests {
    @Test("rewrites the line with carriage return and clear-to-end, and erases it when cleared")
    func drawsOnTerminal() {
        let output = TextOutput.capturing(asTerminal: true)
        let progress = ProgressLine(output: output, minimumInterval: .zero)
        progress.update("12 files")
        progress.update("13 files")
        progress.clear()
        #expect(output.capturedText == "\r12 files\u{1B}[K\r13 files\u{1B}[K\r\u{1B}[K")
    }

    @Test("drops updates closer together than the minimum interval, but not show()")
    func throttles() {
        let output = TextOutput.capturing(asTerminal: true)
        let progress = ProgressLine(output: output, minimumInterval: .seconds(60))
        progress.update("1")
        progress.update("2")
        progress.show("done")
        #expect(output.capturedText == "\r1\u{1B}[K\rdone\u{1B}[K")
    }

    @Test("cuts text to one column less than the width so it never wraps")
    func fitsWidth() {
        let output = TextOutput.capturing(asTerminal: true)
        ProgressLine(output: output, width: 6, minimumInterval: .zero).update("indexing files")
        #expect(output.capturedText == "\rinde…\u{1B}[K")
    }

    @Test("writes nothing when the output is not a terminal")
    func silentOffTerminal() {
        let output = TextOutput.capturing(asTerminal: false)
        let progress = ProgressLine(output: output, minimumInterval: .zero)
        progress.update("12 files")
        progress.clear()
        #expect(output.capturedText == "")
    }
}
