import Foundation
import MediaMetadata

/// What Apple's adjustments file (`IMG_1234.AAE`) says, as the index keeps it: the
/// `files.metadata` of the row, and `Asset.adjustments`.
///
/// The file is a property list (XML, or binary) written by Photos, Image Capture and
/// iCloud downloads beside the original, with the keys `adjustmentFormatIdentifier`
/// (`com.apple.photo`, `com.apple.video.slomo`, …), `adjustmentFormatVersion`,
/// `adjustmentEditorBundleID` (`com.apple.mobileslideshow`, `com.apple.camera`, …),
/// `adjustmentTimestamp` (a date), `adjustmentBaseVersion`, `adjustmentRenderTypes` and
/// `adjustmentData` (the edit itself, opaque to us). Sources: Apple's `PHAdjustmentData`
/// documentation; AAE samples published on openaaefile.com, rae.tnir.org ("Data inside
/// Apple's AAE files") and Stack Overflow question 61023739.
struct AdjustmentValues: StoredFileValues, Equatable {
    /// `adjustmentFormatIdentifier`.
    var formatIdentifier: String?
    /// `adjustmentFormatVersion` (a string; a number is written as its text).
    var formatVersion: String?
    /// `adjustmentEditorBundleID`.
    var editorBundleID: String?
    /// `adjustmentTimestamp`, seconds since 1970 (UTC).
    var timestamp: Double?
    /// `adjustmentBaseVersion`.
    var baseVersion: Int?
    /// `adjustmentRenderTypes`.
    var renderTypes: Int?
    /// The size of `adjustmentData`, in bytes.
    var dataBytes: Int?
    /// Keys that were present with a value of the wrong type.
    var warnings: [String] = []
}

/// Apple's adjustments files: `IMG_1234.AAE` (and `IMG_O1234.AAE`) beside `IMG_1234.HEIC`.
///
/// Reading is bounded and safe on hostile input: at most `maxBytes` are read, the
/// property list's nesting is checked (without recursion) to be at most `maxDepth`
/// before Foundation's `PropertyListSerialization` parses it, and a value of the wrong
/// type is left out with a warning.
enum AdjustmentFile {
    /// Real files are a few kilobytes; a larger one is refused.
    static let maxBytes = 1 << 20
    /// Real files nest two levels; a deeper one is refused before it is parsed.
    static let maxDepth = 16
    /// Containers visited while checking a binary property list's nesting.
    static let maxVisits = 100_000

    /// Whether the path names an adjustments file (extension `.aae`, any case).
    static func isAdjustmentFile(_ path: PathBytes) -> Bool { path.lowercasedExtension == "aae" }

    /// Reads an adjustments file's values.
    /// - Throws: `MetadataError`: `.io` when the read fails, `.malformed` (one sentence)
    ///   when the file is too large, not a property list, nested too deep, or not
    ///   Apple's adjustments.
    static func read(_ source: ByteSource) throws -> AdjustmentValues {
        guard source.size <= UInt64(maxBytes) else {
            throw MetadataError.malformed("the adjustments file is \(source.size) bytes, more than the \(maxBytes) an .AAE file can be")
        }
        return try parse(try source.read(at: 0, count: Int(source.size)))
    }

    /// Parses an adjustments property list.
    /// - Throws: `MetadataError.malformed`, as `read`.
    static func parse(_ bytes: [UInt8]) throws -> AdjustmentValues {
        guard bytes.count <= maxBytes else {
            throw MetadataError.malformed("the adjustments file is \(bytes.count) bytes, more than the \(maxBytes) an .AAE file can be")
        }
        if bytes.starts(with: Array("bplist00".utf8)) {
            try checkBinaryNesting(bytes)
        } else if isXML(bytes) {
            try checkXMLNesting(bytes)
        } else {
            throw MetadataError.malformed("the adjustments file is not a property list (neither XML nor binary)")
        }
        let root: Any
        do {
            root = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        } catch {
            throw MetadataError.malformed("the adjustments file is not a readable property list")
        }
        guard let dictionary = root as? [String: Any] else {
            throw MetadataError.malformed("the adjustments file's property list is not a dictionary")
        }
        guard dictionary["adjustmentFormatIdentifier"] != nil || dictionary["adjustmentData"] != nil else {
            throw MetadataError.malformed("the adjustments file has neither adjustmentFormatIdentifier nor adjustmentData")
        }
        var values = AdjustmentValues()
        func string(_ key: String) -> String? {
            guard let value = dictionary[key] else { return nil }
            if let text = value as? String { return text.isEmpty ? nil : String(text.prefix(200)) }
            values.warnings.append("\(key) is not a string")
            return nil
        }
        func integer(_ key: String) -> Int? {
            guard let value = dictionary[key] else { return nil }
            if let number = value as? Int { return number }
            values.warnings.append("\(key) is not an integer")
            return nil
        }
        values.formatIdentifier = string("adjustmentFormatIdentifier")
        if let number = dictionary["adjustmentFormatVersion"] as? Int {
            values.formatVersion = String(number)
        } else if let number = dictionary["adjustmentFormatVersion"] as? Double, number.isFinite {
            values.formatVersion = String(number)
        } else {
            values.formatVersion = string("adjustmentFormatVersion")
        }
        values.editorBundleID = string("adjustmentEditorBundleID")
        values.baseVersion = integer("adjustmentBaseVersion")
        values.renderTypes = integer("adjustmentRenderTypes")
        if let value = dictionary["adjustmentTimestamp"] {
            if let date = value as? Date, date.timeIntervalSince1970.isFinite {
                values.timestamp = date.timeIntervalSince1970
            } else if let text = value as? String, let date = ISO8601DateFormatter().date(from: text) {
                values.timestamp = date.timeIntervalSince1970
            } else {
                values.warnings.append("adjustmentTimestamp is not a date")
            }
        }
        if let value = dictionary["adjustmentData"] {
            if let data = value as? Data { values.dataBytes = data.count } else { values.warnings.append("adjustmentData is not data") }
        }
        return values
    }

    /// Whether the bytes begin (after a byte-order mark and white space) with `<`.
    private static func isXML(_ bytes: [UInt8]) -> Bool {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index < bytes.count && bytes[index] == UInt8(ascii: "<")
    }

    /// Counts `<array>`/`<dict>` nesting in one pass.
    private static func checkXMLNesting(_ bytes: [UInt8]) throws {
        let opening = [Array("<array".utf8), Array("<dict".utf8)], closing = [Array("</array".utf8), Array("</dict".utf8)]
        var depth = 0
        var index = 0
        while let next = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            index = next + 1
            let rest = bytes[next...]
            if closing.contains(where: rest.starts(with:)) {
                depth -= 1
            } else if let tag = opening.first(where: rest.starts(with:)) {
                // `<array/>` and `<dict/>` are empty; `<arrayfoo>` is no container.
                guard let end = rest.firstIndex(of: UInt8(ascii: ">")) else { break }
                let inside = bytes[(next + tag.count)..<end]
                if inside.last == UInt8(ascii: "/") { continue }
                guard inside.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { continue }
                depth += 1
                guard depth <= maxDepth else {
                    throw MetadataError.malformed("the adjustments file nests more than \(maxDepth) levels deep")
                }
            }
        }
    }

    /// Walks a binary property list's containers from its top object without recursion:
    /// the trailer and offset table must lie inside the file, every reference must name
    /// an object, and no path may be deeper than `maxDepth` (a reference loop is one).
    private static func checkBinaryNesting(_ bytes: [UInt8]) throws {
        func fail(_ reason: String) -> MetadataError { .malformed("the adjustments file's binary property list \(reason)") }
        guard bytes.count >= 8 + 32 else { throw fail("is truncated") }
        func integer(at offset: Int, size: Int) -> Int? {
            guard size >= 1, size <= 8, offset >= 0, offset + size <= bytes.count else { return nil }
            var value: UInt64 = 0
            for byte in bytes[offset..<(offset + size)] { value = value << 8 | UInt64(byte) }
            return value > UInt64(Int.max / 2) ? nil : Int(value)
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6]), referenceSize = Int(bytes[trailer + 7])
        guard let objectCount = integer(at: trailer + 8, size: 8), let top = integer(at: trailer + 16, size: 8),
              let tableOffset = integer(at: trailer + 24, size: 8),
              (1...8).contains(offsetSize), (1...8).contains(referenceSize),
              objectCount >= 1, objectCount <= bytes.count, top < objectCount,
              tableOffset >= 8, tableOffset + objectCount * offsetSize <= trailer
        else { throw fail("has an impossible trailer") }

        var stack: [(object: Int, depth: Int)] = [(top, 1)]
        var visits = 0, pushed = 0
        while let (object, depth) = stack.popLast() {
            guard let offset = integer(at: tableOffset + object * offsetSize, size: offsetSize), offset >= 8, offset < trailer
            else { throw fail("has an object outside the file") }
            let marker = bytes[offset], kind = marker >> 4
            guard kind == 0xA || kind == 0xC || kind == 0xD else { continue }
            visits += 1
            guard depth <= maxDepth else { throw fail("nests more than \(maxDepth) levels deep") }
            guard visits <= maxVisits else { throw fail("has more than \(maxVisits) containers") }
            var count = Int(marker & 0x0F), start = offset + 1
            if count == 0x0F {
                // The count is an integer object: marker 0x1n, then 2^n bytes.
                guard start < trailer, bytes[start] >> 4 == 0x1, bytes[start] & 0x0F <= 3,
                      let value = integer(at: start + 1, size: 1 << Int(bytes[start] & 0x0F))
                else { throw fail("has an unreadable count") }
                start += 1 + (1 << Int(bytes[start] & 0x0F))
                count = value
            }
            let references = kind == 0xD ? count * 2 : count
            guard references <= objectCount * 2, start + references * referenceSize <= trailer
            else { throw fail("has a container larger than the file") }
            pushed += references
            guard pushed <= maxVisits * 10 else { throw fail("has more than \(maxVisits * 10) references") }
            for index in 0..<references {
                guard let child = integer(at: start + index * referenceSize, size: referenceSize), child < objectCount
                else { throw fail("refers to an object it does not have") }
                stack.append((child, depth + 1))
            }
        }
    }
}
