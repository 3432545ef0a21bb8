extension XMPProperties {
    /// Fills the still-empty fields that media-subtype classification reads: the
    /// panorama projection, `exif:UserComment`, and an HDR gain map announced by
    /// Adobe's `hdrgm` namespace or a `GainMap` container item (Ultra HDR JPEG).
    public func applyClassificationFacts(to metadata: inout MediaMetadata) {
        if metadata.panoramaProjectionType == nil { metadata.panoramaProjectionType = projectionType }
        if metadata.usesPanoramaViewer == nil { metadata.usesPanoramaViewer = usePanoramaViewer }
        if metadata.userComment == nil,
           let comment = value(namespace: XMPNamespace.exif, localName: "UserComment")?.trimmingSpacesAndNULs(),
           !comment.isEmpty {
            metadata.userComment = String(comment.prefix(1024))
        }
        // A container that found no gain-map item says false; Adobe's XMP (Samsung's
        // Ultra HDR HEICs) still announces one.
        if metadata.hasGainMap != true,
           value(namespace: Self.hdrGainMapNamespace, localName: "Version") != nil
            || containerItems.contains(where: { $0.semantic == "GainMap" }) {
            metadata.hasGainMap = true
        }
    }

    /// Adobe's gain-map namespace, used by Ultra HDR JPEGs and HEICs.
    static let hdrGainMapNamespace = "http://ns.adobe.com/hdr-gain-map/1.0/"
}
