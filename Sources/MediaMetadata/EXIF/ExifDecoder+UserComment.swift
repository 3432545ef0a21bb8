extension ExifDecoder {
    /// Longer comments are cut: classification needs a word, not an essay.
    static let maxUserCommentCharacters = 1024

    /// Decodes EXIF `UserComment`: an 8-byte character code (`ASCII\0\0\0`,
    /// `UNICODE\0`, `JIS\0\0\0\0\0` or eight NULs for "undefined"), then the text.
    /// Returns nil for blank comments, which most cameras write.
    static func userComment(_ value: ExifValue?) -> String? {
        guard let bytes = value?.bytes, !bytes.isEmpty else { return nil }
        let text: String
        if bytes.count >= 8 {
            let code = bytes[0..<8]
            let body = bytes[8...].prefix(maxUserCommentCharacters * 2)
            if code.starts(with: Array("UNICODE".utf8)) {
                var units: [UInt16] = []
                var index = body.startIndex
                while index + 1 < body.endIndex {
                    let a = UInt16(body[index]), b = UInt16(body[index + 1])
                    units.append(value?.littleEndian == true ? a | b << 8 : a << 8 | b)
                    index += 2
                }
                text = String(decoding: units, as: UTF16.self)
            } else if code.starts(with: Array("ASCII".utf8)) || code.allSatisfy({ $0 == 0 }) {
                text = ExifValue.decodeLeniently(body)
            } else if value?.type == 2 {
                // Some writers store plain ASCII without the character code.
                text = ExifValue.decodeLeniently(bytes[...].prefix(maxUserCommentCharacters))
            } else {
                return nil
            }
        } else {
            text = ExifValue.decodeLeniently(bytes[...])
        }
        let trimmed = String(text.trimmingSpacesAndNULs().prefix(maxUserCommentCharacters))
        return trimmed.isEmpty ? nil : trimmed
    }
}
