import CSQLite
import Foundation

/// Camera makes and models as people name them, from what files record.
///
/// Files record the maker's legal name (`NIKON CORPORATION`, `OLYMPUS IMAGING CORP.`,
/// `samsung`) and often repeat it in the model (`Canon EOS 6D`). `make(_:)` maps known
/// makes to their usual names (as Lightroom and Photos show them) and tidies the rest;
/// `model(_:make:)` drops a repeated make from the front of the model. The raw values
/// stay in `Asset.make` / `Asset.model`; queries (`--make`, `--model`) and tables use
/// these.
public enum CameraNames {
    /// Known makes, by the lower-cased spellings files use.
    static let knownMakes: [String: String] = {
        let table: [(String, [String])] = [
            ("Apple", ["apple", "apple inc.", "apple computer inc."]),
            ("Canon", ["canon", "canon inc."]),
            ("Casio", ["casio", "casio computer co.,ltd.", "casio computer co.,ltd", "casio computer co., ltd."]),
            ("DJI", ["dji"]),
            ("Epson", ["epson", "seiko epson corp."]),
            ("Fujifilm", ["fujifilm", "fuji photo film co., ltd.", "fujifilm corporation"]),
            ("Google", ["google", "google inc."]),
            ("GoPro", ["gopro"]),
            ("Hasselblad", ["hasselblad"]),
            ("HTC", ["htc", "htc corporation"]),
            ("Huawei", ["huawei", "huawei technologies co., ltd."]),
            ("Kodak", ["kodak", "eastman kodak company", "eastman kodak"]),
            ("Konica Minolta", ["konica minolta", "konica minolta camera, inc.", "konica minolta photo imaging, inc."]),
            ("Leica", ["leica", "leica camera ag", "leica camera"]),
            ("LG", ["lg", "lg electronics", "lge"]),
            ("Minolta", ["minolta", "minolta co., ltd.", "minolta co.,ltd"]),
            ("Motorola", ["motorola"]),
            ("Nikon", ["nikon", "nikon corporation", "nikon corp."]),
            ("Nokia", ["nokia"]),
            ("Olympus", ["olympus", "olympus imaging corp.", "olympus corporation", "olympus optical co.,ltd",
                         "olympus optical co., ltd."]),
            ("OM System", ["om digital solutions", "om digital solutions corporation"]),
            ("OnePlus", ["oneplus"]),
            ("Panasonic", ["panasonic"]),
            ("Pentax", ["pentax", "pentax corporation", "asahi optical co.,ltd", "pentax ricoh imaging"]),
            ("Ricoh", ["ricoh", "ricoh imaging company, ltd.", "ricoh co., ltd."]),
            ("Samsung", ["samsung", "samsung techwin", "samsung electronics"]),
            ("Sigma", ["sigma", "sigma corporation"]),
            ("Sony", ["sony", "sony corporation", "sony ericsson"]),
            ("Xiaomi", ["xiaomi"]),
        ]
        var map: [String: String] = [:]
        for (name, spellings) in table {
            for spelling in spellings { map[spelling] = name }
        }
        return map
    }()

    /// The make as people name it: a known maker's usual name, else the recorded text
    /// trimmed of spaces; nil for nothing.
    public static func make(_ raw: String?) -> String? {
        guard let trimmed = raw.map(trim), !trimmed.isEmpty else { return nil }
        return knownMakes[trimmed.lowercased()] ?? trimmed
    }

    /// The model without a repeated make in front (`Canon EOS 6D` → `EOS 6D`,
    /// `NIKON D750` from `NIKON CORPORATION` → `D750`), trimmed; nil for nothing.
    public static func model(_ raw: String?, make rawMake: String?) -> String? {
        guard let model = raw.map(trim), !model.isEmpty else { return nil }
        guard let rawMake = rawMake.map(trim), !rawMake.isEmpty else { return model }
        var prefixes = [rawMake]
        if let firstWord = rawMake.split(separator: " ").first { prefixes.append(String(firstWord)) }
        if let name = make(rawMake) { prefixes.append(name) }
        let lowered = model.lowercased()
        for prefix in prefixes.sorted(by: { $0.count > $1.count }) {
            let candidate = prefix.lowercased() + " "
            if lowered.hasPrefix(candidate), lowered.count > candidate.count {
                return trim(String(model.dropFirst(candidate.count)))
            }
        }
        return model
    }

    /// Every recorded spelling known to mean the make `name` (case aside), with `name`.
    static func spellings(ofMake name: String) -> [String] {
        let normalised = make(name) ?? name
        return [normalised] + knownMakes.filter { $0.value == normalised }.map(\.key).sorted()
    }

    /// Whitespace, newlines and NUL padding, trimmed from both ends of a name.
    private static let padding = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\0"))

    private static func trim(_ text: String) -> String {
        // Most names start and end with a visible ASCII character: nothing to trim, and
        // no need for Foundation's slower path (this runs for every asset listed).
        let utf8 = text.utf8
        if let first = utf8.first, let last = utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
            return text
        }
        return text.trimmingCharacters(in: padding)
    }

    /// Registers `camera_make(make)` and `camera_model(make, model)`, deterministic SQL
    /// functions giving the same names as `make(_:)` and `model(_:make:)`, so queries
    /// filter and group on them. Wraps `sqlite3_create_function_v2`.
    static func register(on handle: OpaquePointer) {
        sqlite3_create_function_v2(handle, "camera_make", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
                                   { context, _, values in
                                       CameraNames.result(context, CameraNames.make(CameraNames.text(values?[0])))
                                   }, nil, nil, nil)
        sqlite3_create_function_v2(handle, "camera_model", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
                                   { context, _, values in
                                       CameraNames.result(context, CameraNames.model(CameraNames.text(values?[1]),
                                                                                     make: CameraNames.text(values?[0])))
                                   }, nil, nil, nil)
    }

    private static func text(_ value: OpaquePointer?) -> String? {
        guard let value, let text = sqlite3_value_text(value) else { return nil }
        return String(cString: text)
    }

    private static func result(_ context: OpaquePointer?, _ text: String?) {
        guard let text else { sqlite3_result_null(context); return }
        sqlite3_result_text(context, text, -1, mediaindex_sqlite_transient())
    }
}
