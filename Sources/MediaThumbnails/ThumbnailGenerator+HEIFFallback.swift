import MediaMetadata

extension ThumbnailGenerator {
    /// A HEIF whose picture libheif refuses (a structure it does not know, a damaged
    /// tile): its largest thumbnail item, decoded without libheif (`HEIFDirectDecoder`),
    /// else its EXIF thumbnail; the thumbnail says why (`fallbackReason`), so
    /// `thumbnails --failures` lists it. Nil when the file holds neither, or neither decodes.
    static func heifFallback(_ data: UnsafeBufferPointer<UInt8>, orientation: Int, request: ThumbnailRequest,
                             pixelLimit: Int, refusal: ThumbnailError) -> EncodedThumbnail? {
        let source = BufferByteSource(data)
        let items = try? HEIFItems.read(source)
        let primary = items?.primaryID
        // Thumbnail items, largest first.
        let thumbnails = (primary.flatMap { items?.items(referencing: $0, by: "thmb") } ?? [])
            .compactMap { id in items?.spatialExtent(of: id).map { (id: id, pixels: $0.width * $0.height) } }
            .sorted { $0.pixels > $1.pixels }
        for thumbnail in thumbnails where thumbnail.pixels <= pixelLimit {
            guard let plan = try? HEIFDirectDecoder(data, item: thumbnail.id),
                  let conversion = YCbCrConversion(items: items, item: thumbnail.id) else { continue }
            let target = ThumbnailGeometry.scaledSize(width: plan.displayedSize.width, height: plan.displayedSize.height,
                                                      request: request)
            guard let image = try? plan.decode(target: target, skipLoopFilters: false, conversion: conversion),
                  var made = try? finish(image, orientation: plan.orientation == 1 ? orientation : 1, request: request,
                                         path: .heifThumbnailItem, warnings: []) else { continue }
            made.fallbackReason = "\(refusal); made from the file's \(plan.displayedSize.width)×\(plan.displayedSize.height) thumbnail item"
            return made
        }
        guard let exif = (try? MetadataReader.embeddedImages(in: source, format: .heic))?.first,
              exif.offset + exif.length <= UInt64(data.count) else { return nil }
        let bytes = UnsafeBufferPointer(rebasing: data[Int(exif.offset)..<Int(exif.offset + exif.length)])
        guard let decoded = try? JPEGDecoder.decode(bytes, request: request, pixelLimit: pixelLimit),
              var made = try? finish(decoded.image, orientation: orientation, request: request, path: .embeddedExifThumbnail,
                                     warnings: decoded.warnings, colour: decoded.colour) else { return nil }
        made.fallbackReason = "\(refusal); made from the file's \(decoded.image.width)×\(decoded.image.height) EXIF thumbnail"
        return made
    }
}
