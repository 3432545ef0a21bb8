/// Reads ASF files (WMV, WMA with video, `.asf`): the Header Object's File and Stream
/// Properties, and the first data packets' timestamps for the frame rate.
///
/// The Header Object is read in one bounded piece; the Data Object only for its first
/// packets, never to the end.
public enum ASFReader {
    static let maxHeaderBytes = 4 << 20
    static let maxHeaderObjects = 1_000
    /// Data bytes read to time the first video frames (ffprobe estimates the rate the same way).
    static let maxDataBytesForTiming = 1 << 20
    static let maxPacketsForTiming = 1_000
    static let maxFramesForTiming = 300

    enum GUID {
        static let header: [UInt8] = [0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C]
        static let data: [UInt8] = [0x36, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C]
        static let fileProperties: [UInt8] = [0xA1, 0xDC, 0xAB, 0x8C, 0x47, 0xA9, 0xCF, 0x11, 0x8E, 0xE4, 0x00, 0xC0, 0x0C, 0x20, 0x53, 0x65]
        static let streamProperties: [UInt8] = [0x91, 0x07, 0xDC, 0xB7, 0xB7, 0xA9, 0xCF, 0x11, 0x8E, 0xE6, 0x00, 0xC0, 0x0C, 0x20, 0x53, 0x65]
        static let headerExtension: [UInt8] = [0xB5, 0x03, 0xBF, 0x5F, 0x2E, 0xA9, 0xCF, 0x11, 0x8E, 0xE3, 0x00, 0xC0, 0x0C, 0x20, 0x53, 0x65]
        static let extendedStreamProperties: [UInt8] = [0xCB, 0xA5, 0xE6, 0x14, 0x72, 0xC6, 0x32, 0x43, 0x83, 0x99, 0xA9, 0x69, 0x52, 0x06, 0x5B, 0x5A]
        static let videoMedia: [UInt8] = [0xC0, 0xEF, 0x19, 0xBC, 0x4D, 0x5B, 0xCF, 0x11, 0xA8, 0xFD, 0x00, 0x80, 0x5F, 0x5C, 0x44, 0x2B]
        static let audioMedia: [UInt8] = [0x40, 0x9E, 0x69, 0xF8, 0x4D, 0x5B, 0xCF, 0x11, 0xA8, 0xFD, 0x00, 0x80, 0x5F, 0x5C, 0x44, 0x2B]
    }

    private struct Object {
        var guid: ArraySlice<UInt8>
        var dataStart: Int
        var end: Int
    }

    /// The objects inside `bytes[start..<end]`; stops at the first impossible size.
    private static func objects(in bytes: [UInt8], from start: Int, to end: Int,
                                warnings: inout [String]) -> [Object] {
        var result: [Object] = []
        var position = start
        while position + 24 <= end, result.count < maxHeaderObjects {
            guard let size = VideoFields.le64(bytes, position + 16), size >= 24 else {
                warnings.append("an ASF header object at offset \(position) states an impossible size")
                break
            }
            let objectEnd: Int
            if size > UInt64(end - position) {
                warnings.append("an ASF header object at offset \(position) runs past its container")
                objectEnd = end
            } else {
                objectEnd = position + Int(size)
            }
            result.append(Object(guid: bytes[position..<(position + 16)], dataStart: position + 24, end: objectEnd))
            position = objectEnd
        }
        return result
    }

    /// Reads duration, size, frame rate, codec, audio presence and the creation date.
    ///
    /// - Throws: `MetadataError` when the Header Object is missing or truncated.
    public static func read(_ source: ByteSource) throws -> ContainerReading {
        let head = try source.read(at: 0, count: 30)
        guard head.count == 30, Array(head[0..<16]) == GUID.header, let declared = VideoFields.le64(head, 16) else {
            throw MetadataError.malformed("the ASF Header Object is missing")
        }
        guard declared >= 30 else { throw MetadataError.malformed("the ASF Header Object states an impossible size") }
        var metadata = MediaMetadata(format: .wmv)
        var headerSize = Int(min(declared, UInt64(maxHeaderBytes)))
        if declared > UInt64(maxHeaderBytes) {
            metadata.warnings.append("the ASF header is larger than \(maxHeaderBytes) bytes; only its start was read")
        }
        if UInt64(headerSize) > source.size {
            metadata.warnings.append("the ASF Header Object runs past the end of the file")
            headerSize = Int(source.size)
        }
        let header = try source.read(at: 0, count: headerSize)

        var playDuration: UInt64?
        var preroll: UInt64 = 0
        var broadcast = false
        var packetSize: Int?
        var videoStream: Int?
        var averageFrameTimes: [Int: UInt64] = [:]
        for object in objects(in: header, from: 30, to: header.count, warnings: &metadata.warnings) {
            let d = object.dataStart
            switch Array(object.guid) {
            case GUID.fileProperties:
                guard object.end - d >= 80 else {
                    metadata.warnings.append("the ASF File Properties Object is too short")
                    continue
                }
                if let fileTime = VideoFields.le64(header, d + 24), let date = captureDate(fileTime: fileTime) {
                    metadata.captureDate = date
                    metadata.captureDateSource = .asfFileProperties
                }
                playDuration = VideoFields.le64(header, d + 40)
                preroll = VideoFields.le64(header, d + 56) ?? 0
                let flags = VideoFields.le32(header, d + 64) ?? 0
                broadcast = flags & 1 != 0
                if let minimum = VideoFields.le32(header, d + 68), let maximum = VideoFields.le32(header, d + 72),
                   minimum == maximum, minimum > 0 {
                    packetSize = minimum
                }
            case GUID.streamProperties:
                guard object.end - d >= 54, let typeLength = VideoFields.le32(header, d + 40),
                      let flags = VideoFields.le16(header, d + 48) else { continue }
                let type = Array(header[d..<(d + 16)])
                if type == GUID.audioMedia { metadata.hasAudio = true }
                guard type == GUID.videoMedia, metadata.pixelWidth == nil else { continue }
                let specific = d + 54
                // Encoded width, height, flags, format size, then a BITMAPINFOHEADER.
                guard typeLength >= 51, specific + 51 <= object.end,
                      let width = VideoFields.le32(header, specific + 15),
                      let height = VideoFields.le32(header, specific + 19) else {
                    metadata.warnings.append("the ASF video stream properties are too short")
                    continue
                }
                let signedWidth = Int(Int32(truncatingIfNeeded: width))
                let signedHeight = abs(Int(Int32(truncatingIfNeeded: height)))
                if signedWidth > 0, signedHeight > 0 {
                    metadata.pixelWidth = signedWidth
                    metadata.pixelHeight = signedHeight
                }
                let compression = header[(specific + 27)..<(specific + 31)]
                metadata.videoCodec = codecName(compression)
                videoStream = flags & 0x7F
            case GUID.headerExtension:
                // Reserved GUID and 16-bit field, the data size, then objects.
                let start = d + 22
                guard start <= object.end else { continue }
                for inner in objects(in: header, from: start, to: object.end, warnings: &metadata.warnings)
                where Array(inner.guid) == GUID.extendedStreamProperties {
                    guard let number = VideoFields.le16(header, inner.dataStart + 48),
                          let frameTime = VideoFields.le64(header, inner.dataStart + 52),
                          inner.dataStart + 60 <= inner.end else { continue }
                    averageFrameTimes[number & 0x7F] = frameTime
                }
            default:
                continue
            }
        }
        if metadata.hasAudio == nil { metadata.hasAudio = false }
        if let playDuration, !broadcast {
            // Play duration is in 100 ns and includes the preroll (milliseconds); ffprobe subtracts it.
            let seconds = Double(playDuration) / 1e7 - Double(preroll) / 1000
            if seconds > 0, seconds.isFinite { metadata.durationSeconds = seconds }
        }
        if let videoStream {
            if let packetSize, declared <= UInt64(Int.max - 50) {
                metadata.frameRate = measuredFrameRate(source, dataObjectOffset: declared, packetSize: packetSize,
                                                       stream: videoStream)
            }
            if metadata.frameRate == nil, let frameTime = averageFrameTimes[videoStream], frameTime > 0 {
                let fps = 1e7 / Double(frameTime)
                if fps.isFinite, fps > 0, fps < 10_000 { metadata.frameRate = VideoFields.snappedFrameRate(fps, tolerance: 0.001) }
            }
        }
        return ContainerReading(metadata: metadata)
    }

    /// A FILETIME (100 ns since 1601, UTC) as a date; nil for zero and the Unix epoch,
    /// which writers such as ffmpeg put there when they know no date.
    static func captureDate(fileTime: UInt64) -> CaptureDate? {
        let seconds = Double(fileTime) / 1e7 - 11_644_473_600
        guard seconds > 0, seconds < 7_258_118_400 else { return nil }  // before 2200
        return CaptureDate(timestamp: seconds, utcOffsetSeconds: 0)
    }

    /// The codec ffmpeg names for a BITMAPINFOHEADER compression code.
    static func codecName(_ code: ArraySlice<UInt8>) -> String? {
        let text = String(decoding: code.map { (0x20...0x7E).contains($0) ? $0 : 0x20 }, as: UTF8.self)
        switch text.uppercased() {
        case "WVC1", "WMVA": return "vc1"
        case "WMVP", "WVP2": return "wmv3image"
        default: return RIFFReader.aviCodecName(text)
        }
    }

    /// The video stream's frame rate from the presentation times of its first media
    /// objects in the Data Object's packets, snapped to a standard rate as ffprobe does.
    static func measuredFrameRate(_ source: ByteSource, dataObjectOffset: UInt64, packetSize: Int,
                                  stream: Int) -> Double? {
        // Data Object: GUID, size, file id, total packets, reserved: 50 bytes.
        guard let head = try? source.read(at: dataObjectOffset, count: 50), head.count == 50,
              Array(head[0..<16]) == GUID.data, packetSize >= 16 else { return nil }
        let available = min(UInt64(maxDataBytesForTiming), source.size - min(source.size, dataObjectOffset + 50))
        let packetCount = min(Int(available) / packetSize, maxPacketsForTiming)
        guard packetCount > 0,
              let data = try? source.read(at: dataObjectOffset + 50, count: packetCount * packetSize) else { return nil }
        var times: Set<Int> = []
        var objectsSeen: Set<Int> = []
        for index in 0..<packetCount where (index + 1) * packetSize <= data.count {
            let packet = Array(data[(index * packetSize)..<((index + 1) * packetSize)])
            for payload in payloads(of: packet) where payload.stream == stream && payload.offset == 0 {
                guard let time = payload.presentationTime, objectsSeen.insert(payload.objectNumber).inserted else { continue }
                times.insert(time)
            }
            if times.count >= maxFramesForTiming { break }
        }
        guard times.count >= 3, let first = times.min(), let last = times.max(), last > first else { return nil }
        let fps = Double(times.count - 1) * 1000 / Double(last - first)
        guard fps.isFinite, fps > 0, fps < 10_000 else { return nil }
        return VideoFields.snappedFrameRate(fps)
    }

    struct Payload {
        var stream: Int
        var objectNumber: Int
        var offset: Int
        /// Milliseconds, from the replicated data; nil for compressed payloads.
        var presentationTime: Int?
    }

    /// The payload headers of one data packet (ASF spec §5.2); stops at the first
    /// field that runs past the packet.
    static func payloads(of packet: [UInt8]) -> [Payload] {
        var p = 0
        guard let first = VideoFields.u8(packet, 0) else { return [] }
        if first & 0x80 != 0 {
            // Error correction data: flags byte, then its length in the low nibble.
            p = 1 + (first & 0x0F)
        }
        guard let lengthFlags = VideoFields.u8(packet, p), let propertyFlags = VideoFields.u8(packet, p + 1) else { return [] }
        p += 2
        let packetLengthSize = VideoFields.asfLengthTypeSize(lengthFlags >> 5)
        let sequenceSize = VideoFields.asfLengthTypeSize(lengthFlags >> 1)
        let paddingSize = VideoFields.asfLengthTypeSize(lengthFlags >> 3)
        p += packetLengthSize + sequenceSize
        let padding = field(packet, p, paddingSize) ?? 0
        p += paddingSize + 6  // send time, duration
        let replicatedSize = VideoFields.asfLengthTypeSize(propertyFlags)
        let offsetSize = VideoFields.asfLengthTypeSize(propertyFlags >> 2)
        let objectSize = VideoFields.asfLengthTypeSize(propertyFlags >> 4)
        let streamSize = VideoFields.asfLengthTypeSize(propertyFlags >> 6)
        let multiple = lengthFlags & 1 != 0
        var count = 1
        var payloadLengthSize = 0
        if multiple {
            guard let flags = VideoFields.u8(packet, p) else { return [] }
            count = flags & 0x3F
            payloadLengthSize = VideoFields.asfLengthTypeSize(flags >> 6)
            p += 1
        }
        let end = max(0, packet.count - padding)
        var result: [Payload] = []
        for _ in 0..<count {
            guard streamSize == 1, let streamByte = VideoFields.u8(packet, p),
                  let objectNumber = field(packet, p + 1, objectSize),
                  let offset = field(packet, p + 1 + objectSize, offsetSize),
                  let replicated = field(packet, p + 1 + objectSize + offsetSize, replicatedSize) else { break }
            p += 1 + objectSize + offsetSize + replicatedSize
            var time: Int?
            if replicated >= 8 { time = VideoFields.le32(packet, p + 4) }
            p += replicated
            guard p <= end else { break }
            // Compressed payloads (replicated length 1) carry the time in the offset field.
            result.append(Payload(stream: streamByte & 0x7F, objectNumber: objectNumber,
                                  offset: replicated == 1 ? 0 : offset,
                                  presentationTime: replicated == 1 ? offset : time))
            if multiple {
                guard let length = field(packet, p, payloadLengthSize) else { break }
                p += payloadLengthSize + length
                guard p <= end else { break }
            }
        }
        return result
    }

    private static func field(_ b: [UInt8], _ i: Int, _ size: Int) -> Int? {
        switch size {
        case 0: return 0
        case 1: return VideoFields.u8(b, i)
        case 2: return VideoFields.le16(b, i)
        default: return VideoFields.le32(b, i)
        }
    }
}
