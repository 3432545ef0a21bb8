/// Namespace URIs of the XMP schemas we read. Prefixes in a packet are arbitrary;
/// properties are matched on these URIs.
public enum XMPNamespace {
    public static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    public static let xml = "http://www.w3.org/XML/1998/namespace"
    public static let exif = "http://ns.adobe.com/exif/1.0/"
    public static let xmp = "http://ns.adobe.com/xap/1.0/"
    public static let tiff = "http://ns.adobe.com/tiff/1.0/"
    public static let photoshop = "http://ns.adobe.com/photoshop/1.0/"
    public static let dc = "http://purl.org/dc/elements/1.1/"
    public static let gPano = "http://ns.google.com/photos/1.0/panorama/"
    public static let gCamera = "http://ns.google.com/photos/1.0/camera/"
    public static let container = "http://ns.google.com/photos/1.0/container/"
    public static let containerItem = "http://ns.google.com/photos/1.0/container/item/"
}

/// One entry of a Google `Container:Directory`: a media item stored in the file.
public struct XMPContainerItem: Sendable, Equatable {
    /// `Item:Mime`, such as `image/jpeg` or `video/mp4`.
    public var mime: String?
    /// `Item:Semantic`: `Primary`, `MotionPhoto`, `GainMap`, `Depth` …
    public var semantic: String?
    /// `Item:Length`: bytes of the item, counted from the end of the previous one.
    public var length: Int64?
    /// `Item:Padding`: bytes between the previous item and this one.
    public var padding: Int64?

    public init(mime: String? = nil, semantic: String? = nil, length: Int64? = nil, padding: Int64? = nil) {
        self.mime = mime; self.semantic = semantic; self.length = length; self.padding = padding
    }
}

/// The properties of one XMP packet that the index uses.
public struct XMPProperties: Sendable, Equatable {
    /// `exif:DateTimeOriginal`.
    public var dateTimeOriginal: CaptureDate?
    /// `xmp:CreateDate`.
    public var createDate: CaptureDate?
    /// `photoshop:DateCreated`.
    public var dateCreated: CaptureDate?
    /// `tiff:Make`, `tiff:Model`.
    public var make: String?
    public var model: String?
    /// `tiff:Orientation`, 1–8.
    public var orientation: Int?
    /// `exif:GPSLatitude` / `exif:GPSLongitude` (and `exif:GPSAltitude`).
    public var location: GeoLocation?
    /// `GPano:ProjectionType`: `equirectangular`, `cylindrical` …
    public var projectionType: String?
    /// `GPano:UsePanoramaViewer`.
    public var usePanoramaViewer: Bool?
    /// `GCamera:MotionPhoto` (1 for a motion photo), `GCamera:MotionPhotoVersion`.
    public var motionPhoto: Int?
    public var motionPhotoVersion: Int?
    /// `GCamera:MotionPhotoPresentationTimestampUs`.
    public var motionPhotoPresentationTimestampUs: Int64?
    /// The older `GCamera:MicroVideo` (1 for a motion photo) and its fields.
    public var microVideo: Int?
    /// `GCamera:MicroVideoOffset`: bytes from the end of the file to the video's start.
    public var microVideoOffset: Int64?
    public var microVideoPresentationTimestampUs: Int64?
    /// The `Container:Directory` items, in order.
    public var containerItems: [XMPContainerItem] = []
    /// `exif:PixelXDimension`, `exif:PixelYDimension`.
    public var pixelXDimension: Int?
    public var pixelYDimension: Int?
    /// `photoshop:SidecarForExtension`: the extension of the file a sidecar describes.
    public var sidecarForExtension: String?
    /// `xmp:Rating`: -1 (rejected) to 5.
    public var rating: Double?
    /// `dc:title` and `dc:description` (the `x-default` alternative, else the first).
    public var title: String?
    public var description: String?
    /// Keywords, title, description, rating, label, people, creator and rights.
    var descriptive = XMPDescription()
    /// Problems met while parsing, one sentence each; the fields above are what was read.
    public var warnings: [String] = []

    /// Every simple property read, keyed by namespace URI and local name; the first
    /// value wins. For alternatives and lists, the default or first item.
    var values: [String: String] = [:]

    public init() {}

    /// The text of the simple property `localName` in the namespace `namespace`.
    public func value(namespace: String, localName: String) -> String? {
        values[namespace + "\u{1}" + localName]
    }

    /// The packet's descriptive metadata alone (as an `.xmp` sidecar gives it); nil when
    /// it says nothing.
    public var descriptiveMetadata: DescriptiveMetadata? {
        let reconciled = DescriptiveSources(xmp: descriptive).reconciled()
        return reconciled.isEmpty ? nil : reconciled
    }

    /// Whether the packet marks a Google/Android motion photo (new or old style).
    public var isMotionPhoto: Bool {
        motionPhoto == 1 || microVideo == 1 || containerItems.contains { $0.semantic == "MotionPhoto" }
    }

    /// Whether the packet marks a photo sphere or panorama.
    public var isPanorama: Bool {
        if let p = projectionType?.lowercased(), p == "equirectangular" || p == "cylindrical" { return true }
        return usePanoramaViewer == true
    }

    /// The capture date the packet offers, best source first.
    public var captureDate: CaptureDate? { captureDateAndSource?.date }

    /// The capture date with the property it came from: `exif:DateTimeOriginal`, else
    /// `photoshop:DateCreated`, else `xmp:CreateDate`.
    public var captureDateAndSource: (date: CaptureDate, source: CaptureDateSource)? {
        if let dateTimeOriginal { return (dateTimeOriginal, .xmpExifDateTimeOriginal) }
        if let dateCreated { return (dateCreated, .xmpPhotoshopDateCreated) }
        if let createDate { return (createDate, .xmpCreateDate) }
        return nil
    }
}

/// Reads XMP packets (in files and `.xmp` sidecars) into `XMPProperties`.
public enum XMPReader {
    /// Packets larger than this are cut; real ones are a few KiB, 64 KiB in JPEG APP1.
    public static let maxPacketBytes = 4 << 20

    /// Parses an XMP packet or sidecar file. Never throws: malformed XML gives what
    /// could be read plus warnings.
    public static func parse(_ bytes: [UInt8]) -> XMPProperties {
        var input = bytes
        var properties = XMPProperties()
        if input.count > maxPacketBytes {
            input = Array(input.prefix(maxPacketBytes))
            properties.warnings.append("XMP: the packet is larger than \(maxPacketBytes) bytes and was cut")
        }
        if input.starts(with: [0xEF, 0xBB, 0xBF]) { input.removeFirst(3) }
        if let utf8 = transcodedFromUTF16(input) { input = utf8 }
        var scanner = XMLScanner(input)
        let root = scanner.parse()
        properties.warnings += scanner.warnings
        var collector = PropertyCollector()
        collector.visit(root, depth: 0)
        properties.values = collector.values
        properties.containerItems = collector.containerItems
        properties.descriptive = XMPDescriptionReader.read(root)
        properties.interpret()
        return properties
    }

    /// Reads an `.xmp` sidecar file: at most `maxPacketBytes` of it, parsed.
    ///
    /// - Throws: `MetadataError.io` when the file cannot be read.
    public static func readSidecar(_ source: ByteSource) throws -> XMPProperties {
        var properties = parse(try source.read(at: 0, count: maxPacketBytes))
        if source.size > UInt64(maxPacketBytes) {
            properties.warnings.append("XMP: the sidecar is larger than \(maxPacketBytes) bytes; only its start was read")
        }
        return properties
    }

    /// XMP may be UTF-16 (the XMP spec allows it, and some writers use it): recognised
    /// by a byte-order mark or by `<` as the first code unit.
    static func transcodedFromUTF16(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 2 else { return nil }
        let bigEndian: Bool
        var start = 0
        switch (bytes[0], bytes[1]) {
        case (0xFE, 0xFF): bigEndian = true; start = 2
        case (0xFF, 0xFE): bigEndian = false; start = 2
        case (0x00, 0x3C): bigEndian = true
        case (0x3C, 0x00): bigEndian = false
        default: return nil
        }
        var units: [UInt16] = []
        units.reserveCapacity((bytes.count - start) / 2)
        var i = start
        while i + 1 < bytes.count {
            let a = UInt16(bytes[i]), b = UInt16(bytes[i + 1])
            units.append(bigEndian ? a << 8 | b : b << 8 | a)
            i += 2
        }
        return Array(String(decoding: units, as: UTF16.self).utf8)
    }

    /// Parses `packet` and fills the fields of `metadata` that are still empty
    /// (capture date, make, model, orientation, location); appends parse warnings.
    public static func apply(_ packet: [UInt8], to metadata: inout MediaMetadata) {
        parse(packet).apply(to: &metadata)
    }
}

extension XMPProperties {
    /// Fills the fields of `metadata` that are still empty; appends the warnings.
    public func apply(to metadata: inout MediaMetadata) {
        if metadata.captureDate == nil, let (date, source) = captureDateAndSource {
            metadata.captureDate = date
            metadata.captureDateSource = source
        }
        if metadata.make == nil { metadata.make = make }
        if metadata.model == nil { metadata.model = model }
        if metadata.orientation == nil { metadata.orientation = orientation }
        if metadata.location == nil, let location, location.isPlausible { metadata.location = location }
        metadata.updateDescriptiveSources { sources in
            if sources.xmp == XMPDescription() { sources.xmp = descriptive }
        }
        metadata.warnings += warnings
    }

    fileprivate mutating func interpret() {
        func text(_ ns: String, _ name: String) -> String? {
            guard let v = value(namespace: ns, localName: name)?.trimmingSpacesAndNULs(), !v.isEmpty else { return nil }
            return v
        }
        func int(_ ns: String, _ name: String) -> Int? { text(ns, name).flatMap(XMPValue.integer).flatMap { Int(exactly: $0) } }
        func int64(_ ns: String, _ name: String) -> Int64? { text(ns, name).flatMap(XMPValue.integer) }

        dateTimeOriginal = text(XMPNamespace.exif, "DateTimeOriginal").flatMap(XMPValue.date)
        createDate = text(XMPNamespace.xmp, "CreateDate").flatMap(XMPValue.date)
        dateCreated = text(XMPNamespace.photoshop, "DateCreated").flatMap(XMPValue.date)
        make = text(XMPNamespace.tiff, "Make")
        model = text(XMPNamespace.tiff, "Model")
        orientation = int(XMPNamespace.tiff, "Orientation").flatMap { (1...8).contains($0) ? $0 : nil }
        if let lat = text(XMPNamespace.exif, "GPSLatitude").flatMap(XMPValue.coordinate),
           let lon = text(XMPNamespace.exif, "GPSLongitude").flatMap(XMPValue.coordinate),
           abs(lat) <= 90, abs(lon) <= 180 {
            var altitude = text(XMPNamespace.exif, "GPSAltitude").flatMap(XMPValue.rational)
            if altitude != nil, int(XMPNamespace.exif, "GPSAltitudeRef") == 1 { altitude = altitude.map { -$0 } }
            location = GeoLocation(latitude: lat, longitude: lon, altitude: altitude)
        }
        projectionType = text(XMPNamespace.gPano, "ProjectionType")
        usePanoramaViewer = text(XMPNamespace.gPano, "UsePanoramaViewer").flatMap(XMPValue.bool)
        motionPhoto = int(XMPNamespace.gCamera, "MotionPhoto")
        motionPhotoVersion = int(XMPNamespace.gCamera, "MotionPhotoVersion")
        motionPhotoPresentationTimestampUs = int64(XMPNamespace.gCamera, "MotionPhotoPresentationTimestampUs")
        microVideo = int(XMPNamespace.gCamera, "MicroVideo")
        microVideoOffset = int64(XMPNamespace.gCamera, "MicroVideoOffset")
        microVideoPresentationTimestampUs = int64(XMPNamespace.gCamera, "MicroVideoPresentationTimestampUs")
        pixelXDimension = int(XMPNamespace.exif, "PixelXDimension")
        pixelYDimension = int(XMPNamespace.exif, "PixelYDimension")
        sidecarForExtension = text(XMPNamespace.photoshop, "SidecarForExtension")
        rating = text(XMPNamespace.xmp, "Rating").flatMap { Double($0) }
        title = text(XMPNamespace.dc, "title")
        description = text(XMPNamespace.dc, "description")
    }
}

/// Walks the element tree and records simple properties and container items.
private struct PropertyCollector {
    var values: [String: String] = [:]
    var containerItems: [XMPContainerItem] = []
    private static let containerKinds: Set<String> = ["Alt", "Seq", "Bag"]

    mutating func record(_ namespace: String, _ localName: String, _ value: String) {
        guard !namespace.isEmpty, namespace != XMPNamespace.rdf, namespace != XMPNamespace.xml else { return }
        let key = namespace + "\u{1}" + localName
        if values[key] == nil { values[key] = value }
    }

    /// Records top-level properties only: a field of a structure (such as the
    /// `exif:GPSLatitude` inside IPTC's `LocationCreated`) describes something else.
    mutating func visit(_ node: XMPTreeNode, depth: Int, insideProperty: Bool = false) {
        guard depth < XMLLimits.maxDepth + 2 else { return }
        if !insideProperty {
            for attribute in node.attributes {
                record(attribute.namespace, attribute.localName, attribute.value)
            }
        }
        let isProperty = !node.namespace.isEmpty && node.namespace != XMPNamespace.rdf && node.namespace != "adobe:ns:meta/"
        if isProperty && !insideProperty {
            if node.namespace == XMPNamespace.container && node.localName == "Directory" {
                collectDirectory(node)
            }
            if node.children.isEmpty {
                let text = node.text.trimmingSpacesAndNULs()
                if !text.isEmpty {
                    record(node.namespace, node.localName, text)
                } else if let resource = node.attributes.first(where: { $0.namespace == XMPNamespace.rdf && $0.localName == "resource" }) {
                    record(node.namespace, node.localName, resource.value)
                }
            } else if let list = node.children.first(where: { $0.namespace == XMPNamespace.rdf && Self.containerKinds.contains($0.localName) }) {
                let items = list.children.filter { $0.namespace == XMPNamespace.rdf && $0.localName == "li" }
                let isDefault: (XMPTreeNode) -> Bool = { item in
                    item.attributes.contains { $0.namespace == XMPNamespace.xml && $0.localName == "lang" && $0.value == "x-default" }
                }
                let chosen = items.first(where: isDefault) ?? items.first
                if let chosen, chosen.children.isEmpty {
                    let text = chosen.text.trimmingSpacesAndNULs()
                    if !text.isEmpty { record(node.namespace, node.localName, text) }
                }
            }
        }
        for child in node.children { visit(child, depth: depth + 1, insideProperty: insideProperty || isProperty) }
    }

    /// Reads each `rdf:li` of a directory: `Item:` fields from attributes or elements,
    /// whether written as `<Container:Item …/>`, `rdf:parseType="Resource"` or a Description.
    mutating func collectDirectory(_ directory: XMPTreeNode) {
        let lists = directory.children.filter { $0.namespace == XMPNamespace.rdf && Self.containerKinds.contains($0.localName) }
        for list in lists {
            for item in list.children where item.namespace == XMPNamespace.rdf && item.localName == "li" {
                guard containerItems.count < 64 else { return }
                var fields: [String: String] = [:]
                gatherItemFields(item, into: &fields, depth: 0)
                containerItems.append(XMPContainerItem(
                    mime: fields["Mime"], semantic: fields["Semantic"],
                    length: fields["Length"].flatMap(XMPValue.integer),
                    padding: fields["Padding"].flatMap(XMPValue.integer)))
            }
        }
    }

    private func gatherItemFields(_ node: XMPTreeNode, into fields: inout [String: String], depth: Int) {
        guard depth < 8 else { return }
        for attribute in node.attributes where attribute.namespace == XMPNamespace.containerItem {
            if fields[attribute.localName] == nil { fields[attribute.localName] = attribute.value }
        }
        if node.namespace == XMPNamespace.containerItem, node.children.isEmpty {
            let text = node.text.trimmingSpacesAndNULs()
            if !text.isEmpty, fields[node.localName] == nil { fields[node.localName] = text }
        }
        for child in node.children { gatherItemFields(child, into: &fields, depth: depth + 1) }
    }
}

/// Parsers for XMP's value syntaxes.
enum XMPValue {
    /// `2018-09-10T12:16:13.5+02:00`, `…Z`, or EXIF-style `2018:09:10 12:16:13`.
    /// A date without a time of day is not a capture moment and gives nil.
    static func date(_ text: String) -> CaptureDate? {
        var main = Substring(text.trimmingSpacesAndNULs())
        var offset: String?
        if main.hasSuffix("Z") || main.hasSuffix("z") {
            offset = "Z"; main = main.dropLast()
        } else if main.count > 10 {
            let afterDate = main.index(main.startIndex, offsetBy: 10)
            if let sign = main[afterDate...].lastIndex(where: { $0 == "+" || $0 == "-" }) {
                offset = String(main[sign...]); main = main[..<sign]
            }
        }
        var subseconds: String?
        if let dot = main.lastIndex(of: "."), main.distance(from: main.startIndex, to: dot) > 10 {
            subseconds = String(main[main.index(after: dot)...]); main = main[..<dot]
        }
        return CaptureDate(exif: String(main), subseconds: subseconds, offset: offset)
    }

    /// XMP GPS coordinates: `48,51.504N`, `48,51,30.2N`, or a signed decimal.
    static func coordinate(_ text: String) -> Double? {
        var body = text.trimmingSpacesAndNULs()
        guard !body.isEmpty else { return nil }
        var sign = 1.0
        if let last = body.last, "NSEWnsew".contains(last) {
            if "SWsw".contains(last) { sign = -1 }
            body.removeLast()
        }
        let parts = body.split(separator: ",").map { Double(String($0).trimmingSpacesAndNULs()) }
        guard !parts.isEmpty, parts.count <= 3, parts.allSatisfy({ $0 != nil }) else { return nil }
        let numbers = parts.compactMap { $0 }
        var value = numbers[0]
        if numbers.count > 1 { value += numbers[1] / 60 }
        if numbers.count > 2 { value += numbers[2] / 3600 }
        guard value.isFinite else { return nil }
        return sign * value
    }

    /// `123/10` or `12.3`.
    static func rational(_ text: String) -> Double? {
        let parts = text.split(separator: "/")
        if parts.count == 2, let n = Double(parts[0]), let d = Double(parts[1]), d != 0 { return n / d }
        return Double(text)
    }

    static func integer(_ text: String) -> Int64? {
        let t = text.trimmingSpacesAndNULs()
        if let v = Int64(t) { return v }
        if let d = Double(t), d.isFinite, d == d.rounded(), abs(d) < 9e18 { return Int64(d) }
        return nil
    }

    static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: return nil
        }
    }
}
