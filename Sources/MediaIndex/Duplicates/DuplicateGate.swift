import Foundation

/// When two capture instants are the same: read from the recorded text
/// (`assets.creation_date`, ISO 8601 as the file records it), so sub-seconds and the UTC
/// offset are known to be present, not guessed from a number.
public struct CaptureInstant: Hashable, Sendable {
    /// Seconds of the local wall clock since 1970 (whole seconds).
    public var localSeconds: Int64
    /// Nanoseconds, when the file recorded sub-seconds.
    public var nanoseconds: Int?
    /// The UTC offset in seconds, when the file recorded one.
    public var offsetSeconds: Int?

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]`; nil for anything else.
    public init?(recorded text: String) {
        let bytes = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[from..<(from + count)] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2) else { return nil }
        let days = Int64(Self.daysFromCivil(year: year, month: month, day: day))
        localSeconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        var index = 19
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            var digits = 0, value = 0
            index += 1
            while index < bytes.count, (48...57).contains(bytes[index]) {
                if digits < 9 { value = value * 10 + Int(bytes[index] - 48); digits += 1 }
                index += 1
            }
            for _ in digits..<9 { value *= 10 }
            nanoseconds = value
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "Z") {
            offsetSeconds = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"),
                  let hours = number(index + 1, 2), let minutes = number(index + 4, 2) {
            offsetSeconds = (bytes[index] == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
        }
    }

    /// Whether two captures are the same instant: UTC when both recorded an offset, else
    /// the wall clock; to the second, and to the nanosecond when either recorded
    /// sub-seconds (the other's then count as zero).
    public func isSameInstant(as other: CaptureInstant) -> Bool {
        var mine = localSeconds, theirs = other.localSeconds
        if let a = offsetSeconds, let b = other.offsetSeconds {
            mine -= Int64(a)
            theirs -= Int64(b)
        }
        guard mine == theirs else { return false }
        // ISO 8601 text leaves out a zero fraction: a burst's frame at .00 reads as no
        // sub-seconds, beside its sister at .25. Sub-seconds on one side only are compared
        // with zero, so a burst never becomes one instant.
        guard nanoseconds != nil || other.nanoseconds != nil else { return true }
        return (nanoseconds ?? 0) == (other.nanoseconds ?? 0)
    }

    /// Seconds between two captures (UTC when both have offsets, else wall clock).
    public func seconds(to other: CaptureInstant) -> Double {
        var mine = Double(localSeconds) + Double(nanoseconds ?? 0) / 1e9
        var theirs = Double(other.localSeconds) + Double(other.nanoseconds ?? 0) / 1e9
        if let a = offsetSeconds, let b = other.offsetSeconds {
            mine -= Double(a)
            theirs -= Double(b)
        }
        return abs(theirs - mine)
    }

    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

/// What a pair of pictures is, from their hashes' distance and their metadata: the
/// decision table of `docs/duplicates.md`, in one function.
///
/// | capture instants                  | camera bodies      | distance              | verdict    |
/// | --------------------------------- | ------------------ | --------------------- | ---------- |
/// | both known, the same              | same or unknown    | ≤ duplicate radius    | duplicate  |
/// | one or both unknown               | same or unknown    | ≤ duplicate radius    | duplicate  |
/// | both known, differ, ≤ 60 s apart  | same or unknown    | ≤ similar radius      | similar    |
/// | both known, differ, > 60 s apart  | any                | any                   | unrelated  |
/// | any                               | both known, differ | any                   | unrelated  |
/// | the same burst (`burst_identifier`)| any               | ≤ similar radius      | similar    |
/// | otherwise                         |                    |                       | unrelated  |
public enum DuplicateGate {
    /// Hashes within this many bits (of 64) are the same picture, when the metadata allows.
    public static let duplicateRadius = 8
    /// A picture's centre hash within this many bits of another's whole hash makes them
    /// the same picture (a crop of ≤ 5 % a side measured ≤ 4); kept below
    /// `duplicateRadius` because the centres are looked up among all whole hashes, two
    /// queries a picture, where each extra bit multiplies the comparisons.
    public static let centreRadius = 6
    /// Hashes within this many bits are "visually close" for similar shots.
    public static let similarRadius = 15
    /// The longest gap between successive shots of a series.
    public static let seriesGap: Double = 60

    /// The facts of one picture the gate reads.
    public struct Facts: Sendable, Hashable {
        public var capture: CaptureInstant?
        /// Make and model, normalised; nil when the file names no camera.
        public var camera: String?
        /// The burst the camera recorded the shot in, if any.
        public var burst: String?

        public init(capture: CaptureInstant?, camera: String?, burst: String? = nil) {
            self.capture = capture
            self.camera = camera
            self.burst = burst
        }
    }

    /// The verdict for two pictures `distance` bits apart.
    public static func verdict(_ a: Facts, _ b: Facts, distance: Int) -> DuplicateKind? {
        if let x = a.camera, let y = b.camera, x != y { return nil }
        let sameBurst = a.burst != nil && a.burst == b.burst
        if let x = a.capture, let y = b.capture {
            if x.isSameInstant(as: y) && !sameBurst {
                return distance <= duplicateRadius ? .duplicate : nil
            }
            return distance <= similarRadius && x.seconds(to: y) <= seriesGap ? .similar : nil
        }
        if sameBurst { return distance <= similarRadius ? .similar : nil }
        return distance <= duplicateRadius ? .duplicate : nil
    }
}

/// The three kinds of group, never mixed.
public enum DuplicateKind: String, Sendable, CaseIterable, Codable {
    /// The same bytes in several places, or one file seen through several paths (hard
    /// links, bind mounts).
    case sameFile = "same-file"
    /// The same picture in different files.
    case duplicate
    /// Successive shots of one camera, visually close: a burst or a series.
    case similar
}
