// The whole pipeline: detection, the container reader, EXIF and XMP.

func fuzzMetadataReader(_ bytes: [UInt8]) { _ = try? MetadataReader.read(MemoryByteSource(bytes)) }
