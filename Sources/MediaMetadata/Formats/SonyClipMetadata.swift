/// What a Sony XAVC / XDCAM clip's XML sidecar says about the clip: the
/// `NonRealTimeMeta` document (namespace `urn:schemas-professionalDisc:nonRealTimeMeta:…`)
/// that Sony cameras write as `C0001M01.XML` beside `C0001.MP4`, or in `M4ROOT/CLIP`.
///
/// Read from it (element names as Sony writes them):
/// - `<CreationDate value="2017-05-14T10:21:14+09:00"/>`: the recording date with its offset;
/// - `<Device manufacturer="Sony" modelName="ILCE-7RM2" …/>`: make and model;
/// - `<AcquisitionRecord><Group name="ExifGPS"><Item name="Latitude" value="35:39:29.780"/>`
///   with `LatitudeRef`, `Longitude`, `LongitudeRef` (and `Altitude`, `AltitudeRef`): the place,
///   where the camera had a fix (`Status` `V` is a void measurement).
public struct SonyClipMetadata: Sendable, Equatable, Codable {
    /// `CreationDate`: local time with the camera's offset.
    public var captureDate: CaptureDate?
    /// `Device/@manufacturer`.
    public var make: String?
    /// `Device/@modelName`.
    public var model: String?
    /// The `ExifGPS` group of `AcquisitionRecord`.
    public var location: GeoLocation?

    /// The largest sidecar read; real ones are a few kilobytes.
    public static let maxBytes = 1 << 20

    public init(captureDate: CaptureDate? = nil, make: String? = nil, model: String? = nil, location: GeoLocation? = nil) {
        self.captureDate = captureDate
        self.make = make
        self.model = model
        self.location = location
    }

    /// Parses a sidecar's bytes; nil when they are not a `NonRealTimeMeta` document.
    ///
    /// Malformed XML gives what could be read before the damage.
    public static func parse(_ bytes: [UInt8]) -> SonyClipMetadata? {
        var scanner = XMLScanner(Array(bytes.prefix(maxBytes)))
        let document = scanner.parse()
        guard let root = document.children.first(where: { $0.localName == "NonRealTimeMeta" }) else { return nil }
        var result = SonyClipMetadata()
        for child in root.children {
            switch child.localName {
            case "CreationDate":
                result.captureDate = child.attribute("value").flatMap(XMPValue.date)
            case "Device":
                result.make = child.attribute("manufacturer")?.nonEmpty
                result.model = child.attribute("modelName")?.nonEmpty
            case "AcquisitionRecord":
                for group in child.children where group.localName == "Group" && group.attribute("name") == "ExifGPS" {
                    result.location = location(group)
                }
            default:
                break
            }
        }
        return result
    }

    /// Reads the sidecar at `source`.
    ///
    /// - Throws: `MetadataError.io` when it cannot be read.
    public static func read(_ source: ByteSource) throws -> SonyClipMetadata? {
        parse(try source.read(at: 0, count: maxBytes))
    }

    /// Fills the still-empty fields of a clip's metadata: the movie's own facts win,
    /// except a date that is only the movie header's UTC time, which the sidecar's
    /// (the same instant, with the camera's offset) replaces.
    public func apply(to metadata: inout MediaMetadata) {
        let dateIsBare = metadata.captureDate == nil || metadata.captureDateSource == .movieHeaderCreationTime
        if dateIsBare, let captureDate {
            metadata.captureDate = captureDate
            metadata.captureDateSource = .sonyClipXML
        }
        if metadata.make == nil { metadata.make = make }
        if metadata.model == nil { metadata.model = model }
        if metadata.location == nil { metadata.location = location }
    }

    private static func location(_ group: XMPTreeNode) -> GeoLocation? {
        var items: [String: String] = [:]
        for item in group.children where item.localName == "Item" {
            if let name = item.attribute("name"), let value = item.attribute("value") { items[name] = value }
        }
        if items["Status"]?.uppercased() == "V" { return nil }
        // Sony writes degrees:minutes:seconds ("35:39:29.780"); a decimal is read too.
        func degrees(_ text: String?) -> Double? {
            guard let text else { return nil }
            return XMPValue.coordinate(String(text.map { $0 == ":" ? "," : $0 }))
        }
        guard var latitude = degrees(items["Latitude"]), var longitude = degrees(items["Longitude"]) else { return nil }
        if items["LatitudeRef"]?.uppercased() == "S" { latitude = -abs(latitude) }
        if items["LongitudeRef"]?.uppercased() == "W" { longitude = -abs(longitude) }
        guard abs(latitude) <= 90, abs(longitude) <= 180, latitude != 0 || longitude != 0 else { return nil }
        var altitude = items["Altitude"].flatMap(XMPValue.rational)
        if let a = altitude, items["AltitudeRef"] == "1" { altitude = -a }
        return GeoLocation(latitude: latitude, longitude: longitude, altitude: altitude)
    }
}

extension XMPTreeNode {
    /// The value of the attribute with this local name, in any namespace.
    func attribute(_ localName: String) -> String? {
        attributes.first { $0.localName == localName }?.value
    }
}

private extension String {
    var nonEmpty: String? {
        let trimmed = trimmingSpacesAndNULs()
        return trimmed.isEmpty ? nil : trimmed
    }
}
