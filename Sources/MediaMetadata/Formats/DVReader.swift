/// Reads raw DV (IEC 61834 / SMPTE 314M DIF streams): the system from the header
/// block and the VAUX source pack, the recording date from the VAUX (else subcode)
/// packs, and the duration from the file size.
public enum DVReader {
    static let blockBytes = 80
    /// One DIF sequence: 150 blocks. Everything read here lies in the first one.
    static let sequenceBytes = 150 * 80

    struct Profile {
        var width: Int
        var height: Int
        var frameRate: Double
        var frameBytes: Int
        /// The pixel aspect of a 4:3 picture, and of a 16:9 one (ffmpeg's `dv_profile`).
        var standardAspect: (horizontal: Int, vertical: Int)
        var wideAspect: (horizontal: Int, vertical: Int)

        init(width: Int, height: Int, frameRate: Double, frameBytes: Int) {
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.frameBytes = frameBytes
            switch (width, height) {
            case (720, 576): (standardAspect, wideAspect) = ((16, 15), (64, 45))
            case (720, 480): (standardAspect, wideAspect) = ((8, 9), (32, 27))
            case (1280, 1080): (standardAspect, wideAspect) = ((3, 2), (3, 2))
            default: (standardAspect, wideAspect) = ((4, 3), (4, 3))  // 1440×1080, 960×720: 16:9 only
            }
        }
    }

    /// Reads size, frame rate, duration, audio presence and the recording date.
    ///
    /// - Throws: `MetadataError` when the file does not start with a DIF header block.
    public static func read(_ source: ByteSource) throws -> ContainerReading {
        let sequence = try source.read(at: 0, count: sequenceBytes)
        guard sequence.count >= blockBytes, sequence[0] & 0xE0 == 0 else {
            throw MetadataError.malformed("the DV header block is missing")
        }
        var metadata = MediaMetadata(format: .dv)
        metadata.videoCodec = "dvvideo"
        let is625 = sequence[3] & 0x80 != 0

        // Packs of the VAUX blocks (section type 2): 15 five-byte packs after a 3-byte id.
        var vauxPacks: [ArraySlice<UInt8>] = []
        var subcodePacks: [ArraySlice<UInt8>] = []
        var block = 0
        while (block + 1) * blockBytes <= sequence.count {
            let start = block * blockBytes
            switch sequence[start] >> 5 {
            case 1:  // subcode: six SSYBs of 2 id bytes, a reserved byte and a pack
                for i in 0..<6 {
                    let p = start + 3 + i * 8 + 3
                    subcodePacks.append(sequence[p..<(p + 5)])
                }
            case 2:
                for i in 0..<15 {
                    let p = start + 3 + i * 5
                    vauxPacks.append(sequence[p..<(p + 5)])
                }
            default:
                break
            }
            block += 1
        }
        let sourceType = vauxPacks.first { $0.first == 0x60 }.map { Int($0[$0.startIndex + 3] & 0x1F) } ?? 0
        guard let profile = profile(sourceType: sourceType, is625: is625) else {
            metadata.warnings.append("the DV source type \(sourceType) is not one this reader knows")
            return ContainerReading(metadata: metadata)
        }
        // The shape shown: 4:3, or 16:9 when the VAUX source control pack (0x61) says so in
        // its display mode (2; 7 with application ID 0), as ffmpeg reads it; DVCPRO HD is
        // always 16:9. The width is scaled by ffmpeg's pixel aspect for that shape.
        let display = vauxPacks.first { $0.first == 0x61 }.map { Int($0[$0.startIndex + 2] & 0x07) }
        let wide = display == 2 || (sequence[4] & 0x07 == 0 && display == 7)
        metadata.pixelWidth = VideoFields.displayWidth(codedWidth: profile.width,
                                                       pixelAspect: wide ? profile.wideAspect : profile.standardAspect)
        metadata.pixelHeight = profile.height
        metadata.frameRate = profile.frameRate
        metadata.durationSeconds = Double(source.size) / Double(profile.frameBytes) / profile.frameRate
        // The AAUX source pack sits in the fourth audio block (ffmpeg reads it there too).
        let audioPack = 6 * blockBytes + 16 * blockBytes * 3 + 3
        metadata.hasAudio = VideoFields.u8(sequence, audioPack) == 0x50

        if let date = recordingDate(vauxPacks) ?? recordingDate(subcodePacks) {
            metadata.captureDate = date
            metadata.captureDateSource = .dvRecordingDate
        }
        return ContainerReading(metadata: metadata)
    }

    /// ffmpeg's DV profiles, by VAUX source type and 625/50 flag.
    static func profile(sourceType: Int, is625: Bool) -> Profile? {
        let ntsc = 30000.0 / 1001
        switch sourceType {
        case 0, 1:
            return is625 ? Profile(width: 720, height: 576, frameRate: 25, frameBytes: 144_000)
                : Profile(width: 720, height: 480, frameRate: ntsc, frameBytes: 120_000)
        case 4:
            return is625 ? Profile(width: 720, height: 576, frameRate: 25, frameBytes: 288_000)
                : Profile(width: 720, height: 480, frameRate: ntsc, frameBytes: 240_000)
        case 0x14, 0x15:
            return is625 ? Profile(width: 1440, height: 1080, frameRate: 25, frameBytes: 576_000)
                : Profile(width: 1280, height: 1080, frameRate: ntsc, frameBytes: 480_000)
        case 0x18:
            return is625 ? Profile(width: 960, height: 720, frameRate: 50, frameBytes: 288_000)
                : Profile(width: 960, height: 720, frameRate: 60000.0 / 1001, frameBytes: 240_000)
        default:
            return nil
        }
    }

    /// The date of the first recording-date pack (0x62) with a valid date, with the
    /// time of the first recording-time pack (0x63); local time.
    static func recordingDate(_ packs: [ArraySlice<UInt8>]) -> CaptureDate? {
        func bcd(_ byte: UInt8) -> Int? {
            let high = Int(byte >> 4), low = Int(byte & 0x0F)
            return high < 10 && low < 10 ? high * 10 + low : nil
        }
        var date: (Int, Int, Int)?
        var time: (Int, Int, Int)?
        for pack in packs where pack.count == 5 {
            let b = Array(pack)
            if b[0] == 0x62, date == nil, let day = bcd(b[2] & 0x3F), let month = bcd(b[3] & 0x1F), let year = bcd(b[4]),
               (1...31).contains(day), (1...12).contains(month) {
                date = (year < 70 ? 2000 + year : 1900 + year, month, day)
            }
            if b[0] == 0x63, time == nil, let second = bcd(b[2] & 0x7F), let minute = bcd(b[3] & 0x7F),
               let hour = bcd(b[4] & 0x3F), second < 60, minute < 60, hour < 24 {
                time = (hour, minute, second)
            }
        }
        guard let date else { return nil }
        let t = time ?? (0, 0, 0)
        return CaptureDate(year: date.0, month: date.1, day: date.2, hour: t.0, minute: t.1, second: t.2)
    }
}
