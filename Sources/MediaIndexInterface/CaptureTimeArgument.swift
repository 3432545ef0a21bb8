import Foundation
import MediaIndex

/// "Adjust date and time" as the CLI (`adjust-time`) and HTTP (`/v1/assets/capture-time`) read it.
public enum CaptureTimeArgument {
    /// `+09:00`, `-0330`, `+00:00` as seconds; nil for anything else or beyond ±14:00.
    public static func offsetSeconds(_ text: String) -> Int? {
        let characters = Array(text)
        guard let sign = characters.first, sign == "+" || sign == "-" else { return nil }
        let rest = characters.dropFirst()
        let digits = rest.filter { $0 != ":" }
        guard digits.count == 4, rest.count - digits.count <= 1, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              rest.count == 4 || rest[rest.startIndex + 2] == ":",
              let hours = Int(String(digits.prefix(2))), let minutes = Int(String(digits.suffix(2))), minutes < 60
        else { return nil }
        let seconds = (hours * 60 + minutes) * 60 * (sign == "-" ? -1 : 1)
        return abs(seconds) <= 14 * 3600 ? seconds : nil
    }

    /// The setting an offset or a zone names; the refusal names `option` and what it takes.
    public static func setting(offset: String?, zone: String?, option: (String) -> String) throws -> UserTimeSetting? {
        if let offset {
            guard let seconds = offsetSeconds(offset) else {
                throw ParameterError("\(option("offset")) takes ±hh:mm between -14:00 and +14:00, such as +09:00, not '\(offset)'")
            }
            return .offset(seconds: seconds)
        }
        if let zone {
            guard zone == "UTC" || (zone.contains("/") && TimeZone(identifier: zone) != nil) else {
                throw ParameterError("\(option("zone")) takes an IANA time zone such as Asia/Tokyo, not '\(zone)'")
            }
            return .zone(zone)
        }
        return nil
    }
}
