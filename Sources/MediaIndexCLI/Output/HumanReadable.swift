/// Sizes and durations as people read them.
public enum HumanReadable {
    /// A byte count in SI decimal units, as Apple's Finder and `ls --si` count
    /// (1 kB = 1000 bytes): `512 B`, `1.2 kB`, `12 MB`, `999 MB`, `1.0 GB`. One decimal
    /// below 10 units, none from 10, so a column stays narrow (at most 6 characters).
    public static func byteCount(_ bytes: Int64) -> String {
        if bytes < 0 { return "-" + byteCount(bytes == .min ? .max : -bytes) }
        if bytes < 1000 { return "\(bytes) B" }
        let units = ["kB", "MB", "GB", "TB", "PB", "EB"]
        var value = Double(bytes) / 1000
        for (index, unit) in units.enumerated() {
            let tenths = (value * 10).rounded()
            if tenths < 100 {
                return "\(Int(tenths) / 10).\(Int(tenths) % 10) \(unit)"
            }
            let whole = value.rounded()
            if whole < 1000 || index == units.count - 1 {
                return "\(Int(whole)) \(unit)"
            }
            value /= 1000
        }
        return "\(bytes) B"
    }

    /// `byteCount(_:)` for an `Int`.
    public static func byteCount(_ bytes: Int) -> String { byteCount(Int64(bytes)) }

    /// A duration as a clock reads, rounded to the second: `0:03`, `4:05`, `1:02:03`.
    /// Negative durations get a `-`; NaN, infinities and absurd values read `--:--`.
    public static func duration(seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e12 else { return "--:--" }
        let total = Int(abs(seconds).rounded())
        let sign = seconds < 0 && total > 0 ? "-" : ""
        let hours = total / 3600, minutes = total / 60 % 60, secondsPart = total % 60
        if hours > 0 {
            return "\(sign)\(hours):\(twoDigits(minutes)):\(twoDigits(secondsPart))"
        }
        return "\(sign)\(minutes):\(twoDigits(secondsPart))"
    }

    static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
