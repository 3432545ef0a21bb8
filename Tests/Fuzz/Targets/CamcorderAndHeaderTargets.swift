// AVCHD's H.264 camera metadata (MDPM), Sony's clip XML, the non-TIFF raws (MRW,
// ARRIRAW, Kyocera), the header-only image formats, Ogg, DjVu and Lytro LFP, over
// arbitrary bytes.

func fuzzH264CameraMetadata(_ bytes: [UInt8]) {
    _ = H264CameraMetadata.find(inElementaryStream: bytes)
    _ = H264CameraMetadata.parseSEI(bytes)
    _ = H264CameraMetadata.parseMDPM(bytes)
}

func fuzzSonyClipXML(_ bytes: [UInt8]) { _ = SonyClipMetadata.parse(bytes) }

func fuzzRawHeaders(_ bytes: [UInt8]) {
    let source = MemoryByteSource(bytes)
    _ = try? RawHeaderReader.readMRW(source)
    _ = try? RawHeaderReader.readARRI(source)
    _ = try? RawHeaderReader.readKyocera(source)
}

func fuzzImageHeaders(_ bytes: [UInt8]) {
    let source = MemoryByteSource(bytes)
    for format in [MediaFormat.jpeg2000, .ico, .bpg, .netpbm, .pcx, .flif, .radianceHDR, .pgf, .mrc] {
        _ = try? ImageHeaderReader.read(source, format: format)
    }
}

func fuzzOgg(_ bytes: [UInt8]) {
    _ = try? OggReader.read(MemoryByteSource(bytes))
    _ = OggReader.codec(identificationHeader: bytes)
}

func fuzzDjVu(_ bytes: [UInt8]) {
    _ = try? DjVuReader.read(MemoryByteSource(bytes))
    _ = DjVuReader.parseAnnotations(bytes)
    _ = BZZDecoder.decode(bytes, maxOutput: 1 << 16)
}

func fuzzLytro(_ bytes: [UInt8]) {
    _ = try? LytroReader.read(MemoryByteSource(bytes))
    var json = TinyJSON(bytes: bytes)
    _ = json.parseDocument()
}
