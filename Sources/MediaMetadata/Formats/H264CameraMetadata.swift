/// The camera metadata that AVCHD camcorders and cameras (Sony, Panasonic, Canon, JVC)
/// write into their H.264 stream: the "Modified DV Pack Metadata" (MDPM) of an SEI
/// message of type 5 (user data unregistered) whose UUID is
/// `17ee8c60-f84d-11d9-8cd6-0800200c9a66`, followed by the text `MDPM`.
///
/// Layout (exiftool's `H264.pm` and its "H264 Tags" documentation): after the UUID and
/// `MDPM`, one byte counts the entries; each entry is a tag byte and four data bytes,
/// tags in increasing order. The fields read here:
/// - 0x18 + 0x19: the recording date: a zone byte (0x20 sign, bits 1–4 hours, 0x01
///   half an hour, 0x40 daylight saving), then BCD century, year, month, day, hour,
///   minute, second;
/// - 0xE0: the maker code (big-endian 16 bits: 0x0103 Panasonic, 0x0108 Sony, 0x1011
///   Canon, 0x1104 JVC);
/// - 0xE4–0xE6: Sony's model name (text);
/// - 0xB1–0xB8: GPS latitude and longitude (reference letter, then degrees, minutes,
///   seconds, each a 16-bit numerator and denominator), 0xB9/0xBA the altitude.
struct H264CameraMetadata: Equatable {
    var captureDate: CaptureDate?
    var make: String?
    var model: String?
    var location: GeoLocation?

    static let userDataUUID: [UInt8] = [0x17, 0xEE, 0x8C, 0x60, 0xF8, 0x4D, 0x11, 0xD9,
                                        0x8C, 0xD6, 0x08, 0x00, 0x20, 0x0C, 0x9A, 0x66]
    static let mdpm: [UInt8] = Array("MDPM".utf8)
    static let makers: [Int: String] = [0x0103: "Panasonic", 0x0108: "Sony", 0x1011: "Canon", 0x1104: "JVC"]
    /// At most this many NAL units of the stream are looked at.
    static let maxNALUnits = 4096

    /// The first MDPM found in an H.264 elementary stream (Annex B start codes), or nil.
    static func find(inElementaryStream es: [UInt8]) -> H264CameraMetadata? {
        var units = 0
        var i = 0
        while units < maxNALUnits, let start = MPEGReader.findStartCode(es, from: i, code: { $0 & 0x9F == 0x06 }) {
            units += 1
            let payloadStart = start + 4
            let end = MPEGReader.findStartCode(es, from: payloadStart, code: { _ in true }) ?? es.count
            if let found = parseSEI(H264NALUnit.rbsp(Array(es[payloadStart..<end]))) { return found }
            i = payloadStart
        }
        return nil
    }

    /// Walks the SEI messages of one SEI RBSP for the MDPM user data.
    static func parseSEI(_ b: [UInt8]) -> H264CameraMetadata? {
        var p = 0
        while p < b.count {
            var type = 0, size = 0
            while p < b.count, b[p] == 0xFF { type += 255; p += 1 }
            guard p < b.count else { return nil }
            type += Int(b[p]); p += 1
            while p < b.count, b[p] == 0xFF { size += 255; p += 1 }
            guard p < b.count else { return nil }
            size += Int(b[p]); p += 1
            guard type != 0x80, p + size <= b.count else { return nil }  // 0x80: the trailing bits
            if type == 5, size > 21, Array(b[p..<(p + 16)]) == userDataUUID, Array(b[(p + 16)..<(p + 20)]) == mdpm {
                return parseMDPM(Array(b[(p + 20)..<(p + size)]))
            }
            p += size
        }
        return nil
    }

    /// Decodes the entries that follow `MDPM`: a count, then 5-byte entries.
    static func parseMDPM(_ b: [UInt8]) -> H264CameraMetadata? {
        guard let count = b.first else { return nil }
        var entries: [Int: [UInt8]] = [:]
        var last = -1
        var p = 1
        for _ in 0..<Int(count) {
            guard p + 5 <= b.count else { break }
            let tag = Int(b[p])
            guard tag > last else { break }  // out of order: the rest is not trusted (as exiftool)
            last = tag
            entries[tag] = Array(b[(p + 1)..<(p + 5)])
            p += 5
        }
        var result = H264CameraMetadata()
        if let first = entries[0x18], let second = entries[0x19] {
            result.captureDate = date(first + second)
        }
        if let maker = entries[0xE0] {
            let code = Int(maker[0]) << 8 | Int(maker[1])
            result.make = makers[code]
        }
        if result.make == "Sony" {
            let text = (entries[0xE4] ?? []) + (entries[0xE5] ?? []) + (entries[0xE6] ?? [])
            let model = String(decoding: text.prefix { $0 != 0 }, as: UTF8.self).trimmingSpacesAndNULs()
            if !model.isEmpty { result.model = model }
        }
        result.location = location(entries)
        return result == H264CameraMetadata() ? nil : result
    }

    /// The recording date from the 8 bytes of tags 0x18 and 0x19.
    static func date(_ b: [UInt8]) -> CaptureDate? {
        guard b.count == 8 else { return nil }
        func bcd(_ byte: UInt8) -> Int? {
            let high = Int(byte >> 4), low = Int(byte & 0x0F)
            return high < 10 && low < 10 ? high * 10 + low : nil
        }
        guard let century = bcd(b[1]), let year = bcd(b[2]), let month = bcd(b[3]), let day = bcd(b[4]),
              let hour = bcd(b[5]), let minute = bcd(b[6]), let second = bcd(b[7]),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        let zone = b[0]
        // The zone as exiftool reads it (the daylight-saving flag is not added to it); a
        // zone beyond ±14 hours (such as the 0xFF of an unset byte) is no zone.
        let minutes = Int((zone >> 1) & 0x0F) * 60 + (zone & 0x01 != 0 ? 30 : 0)
        let offset: Int? = minutes <= 14 * 60 ? (zone & 0x20 != 0 ? -minutes : minutes) * 60 : nil
        return CaptureDate(year: century * 100 + year, month: month, day: day, hour: hour, minute: minute,
                           second: second, utcOffsetSeconds: offset)
    }

    /// Latitude and longitude from tags 0xB1–0xB8, the altitude from 0xB9/0xBA.
    static func location(_ entries: [Int: [UInt8]]) -> GeoLocation? {
        func rational(_ tag: Int) -> Double? {
            guard let v = entries[tag] else { return nil }
            let numerator = Double(Int(v[0]) << 8 | Int(v[1])), denominator = Double(Int(v[2]) << 8 | Int(v[3]))
            return denominator > 0 ? numerator / denominator : nil
        }
        func degrees(_ first: Int) -> Double? {
            guard let d = rational(first) else { return nil }
            return d + (rational(first + 1) ?? 0) / 60 + (rational(first + 2) ?? 0) / 3600
        }
        guard let latitudeRef = entries[0xB1]?.first, let longitudeRef = entries[0xB5]?.first,
              var latitude = degrees(0xB2), var longitude = degrees(0xB6) else { return nil }
        if latitudeRef == UInt8(ascii: "S") { latitude = -latitude }
        if longitudeRef == UInt8(ascii: "W") { longitude = -longitude }
        guard abs(latitude) <= 90, abs(longitude) <= 180, latitude != 0 || longitude != 0 else { return nil }
        var altitude = rational(0xBA)
        if let a = altitude, let ref = entries[0xB9], ref.contains(where: { $0 != 0 }) { altitude = -a }
        return GeoLocation(latitude: latitude, longitude: longitude, altitude: altitude)
    }
}

/// H.264 network abstraction layer units (ITU-T H.264 §7.3.1).
enum H264NALUnit {
    /// Removes emulation-prevention bytes (`00 00 03`) from a NAL unit's payload.
    static func rbsp(_ nal: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(nal.count)
        var zeros = 0
        for byte in nal {
            if zeros >= 2 && byte == 3 { zeros = 0; continue }
            zeros = byte == 0 ? zeros + 1 : 0
            out.append(byte)
        }
        return out
    }
}
