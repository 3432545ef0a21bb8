import MediaIndex

/// The size, mode and format of a thumbnail, as `mediaindex thumbnail` and
/// `GET /v1/assets/{id}/thumbnail` take them; `option` is the parameter as its user
/// spells it (`--size`, `size`).
public enum ThumbnailParameters {
    /// A size from 16 to 4096 pixels.
    ///
    /// - Throws: `ParameterError` for anything else.
    public static func size(_ text: String, option: String = "--size") throws -> Int {
        guard let size = Int(text), size >= 16, size <= 4096 else {
            throw ParameterError("\(option) takes a number of pixels from 16 to 4096, not '\(text)'")
        }
        return size
    }

    /// `fit` (the default) or `fill`.
    ///
    /// - Throws: `ParameterError` for anything else.
    public static func mode(_ text: String?, option: String = "--mode") throws -> ThumbnailMode {
        guard let text else { return .fit }
        guard let mode = ThumbnailMode(rawValue: text.lowercased()) else {
            throw ParameterError(Suggestion.refusal(of: text, for: option, valid: ["fit", "fill"]))
        }
        return mode
    }

    /// `jpeg` (the default, also `jpg`) or `webp`.
    ///
    /// - Throws: `ParameterError` for anything else.
    public static func format(_ text: String?, option: String = "--format") throws -> ThumbnailFormat {
        switch text?.lowercased() {
        case nil, "jpeg", "jpg": return .jpeg()
        case "webp": return .webp()
        default: throw ParameterError(Suggestion.refusal(of: text ?? "", for: option, valid: ["jpeg", "webp"]))
        }
    }
}
