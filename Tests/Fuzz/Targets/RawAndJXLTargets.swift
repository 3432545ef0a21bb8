// Canon CRW (CIFF heaps), Sigma X3F and JPEG XL over arbitrary bytes.

func fuzzCIFF(_ bytes: [UInt8]) { _ = try? CIFFReader.read(MemoryByteSource(bytes)) }
func fuzzX3F(_ bytes: [UInt8]) { _ = try? X3FReader.read(MemoryByteSource(bytes)) }
func fuzzJXL(_ bytes: [UInt8]) { _ = try? JXLReader.read(MemoryByteSource(bytes)) }
