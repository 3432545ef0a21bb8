// The ASF, FLV, DV and MPEG readers over arbitrary bytes: they may throw MetadataError, never crash.

func fuzzASF(_ bytes: [UInt8]) { _ = try? ASFReader.read(MemoryByteSource(bytes)) }
func fuzzFLV(_ bytes: [UInt8]) { _ = try? FLVReader.read(MemoryByteSource(bytes)) }
func fuzzDV(_ bytes: [UInt8]) { _ = try? DVReader.read(MemoryByteSource(bytes)) }
func fuzzMPEG(_ bytes: [UInt8]) {
    // The first byte picks the path: a transport stream's sync byte, else a program or elementary stream.
    let source = MemoryByteSource(bytes)
    if bytes.first == 0x47 { _ = try? MPEGReader.readTransportStream(source) } else { _ = try? MPEGReader.readProgramStream(source) }
}
