import Foundation
import MediaMetadata

/// What `exportUserDescriptionsToXMP` did, or would do, for one asset.
public struct XMPSidecarExport: Sendable, Equatable {
    /// What happened to the sidecar.
    public enum Outcome: String, Sendable, Equatable {
        /// A new `NAME.EXT.xmp` was written (or, in a dry run, would be).
        case written
        /// The asset already has a sidecar (another tool's); it is left as it is.
        case sidecarExists
    }

    public var asset: Asset.ID
    /// The sidecar's path: the one written, or the one already there.
    public var path: PathBytes
    public var outcome: Outcome
}

extension MediaLibrary {
    /// Writes the user's own words into `.xmp` sidecars (see `Blocking.exportUserDescriptionsToXMP`).
    ///
    /// - Throws: as `Blocking.exportUserDescriptionsToXMP(dryRun:)`.
    public func exportUserDescriptionsToXMP(dryRun: Bool) async throws -> [XMPSidecarExport] {
        try await offExecutor { try $0.exportUserDescriptionsToXMP(dryRun: dryRun) }
    }
}

extension MediaLibrary.Blocking {
    /// Writes the rating, title, caption and keywords set through MediaIndex into a new
    /// `.xmp` sidecar beside each asset's primary file (`NAME.EXT.xmp`), the only files
    /// MediaIndex ever writes among the user's media; originals are never touched. An
    /// asset that already has a sidecar (darktable's, Lightroom's …) keeps it unchanged
    /// and is reported as such; a file that appears at the path meanwhile is never
    /// overwritten. With `dryRun`, nothing is written and the list says what would be.
    ///
    /// - Throws: `LibraryError.io` naming the sidecar that could not be written,
    ///   `LibraryError.database`.
    public func exportUserDescriptionsToXMP(dryRun: Bool) throws -> [XMPSidecarExport] {
        var exports: [XMPSidecarExport] = []
        for (asset, primary, sidecar) in try described() {
            let description = try userDescription(of: asset)
            guard !description.isEmpty else { continue }
            if let sidecar {
                exports.append(XMPSidecarExport(asset: asset, path: sidecar, outcome: .sidecarExists))
                continue
            }
            let path = PathBytes(primary.bytes + Array(".xmp".utf8))
            if !dryRun {
                do {
                    try Data(XMPPacketWriter.packet(description).utf8)
                        .write(to: URL(fileURLWithPath: path.displayString), options: .withoutOverwriting)
                } catch {
                    throw LibraryError.io("the sidecar \(path.displayString) could not be written: \(error.localizedDescription)")
                }
            }
            exports.append(XMPSidecarExport(asset: asset, path: path, outcome: .written))
        }
        return exports
    }

    /// Assets with user-set words, with their primary file and their first sidecar, if any.
    private func described() throws -> [(Asset.ID, PathBytes, PathBytes?)] {
        let identifiers = try library.read { db in
            try db.rows("""
                SELECT identifier FROM userstate.asset_user_state
                WHERE rating IS NOT NULL OR title IS NOT NULL OR caption IS NOT NULL OR keywords IS NOT NULL
                ORDER BY identifier
                """).compactMap { $0.string("identifier") }
        }
        return try library.read { db in
            try identifiers.compactMap { identifier -> (Asset.ID, PathBytes, PathBytes?)? in
                let files = try db.rows("""
                    SELECT files.path, files.role FROM files JOIN assets ON assets.id = files.asset_id
                    WHERE assets.identifier = ? ORDER BY files.path
                    """, [identifier])
                let primary = files.first { FileRole(stored: $0.string("role"))?.isPrimary == true }?.blob("path")
                let sidecar = files.first { $0.string("role") == FileRole.sidecar.rawValue }?.blob("path")
                guard let primary else { return nil }
                let existing = sidecar.map(PathBytes.init) ?? Self.sidecarOnDisk(for: PathBytes(primary))
                return (Asset.ID(stored: identifier), PathBytes(primary), existing)
            }
        }
    }

    /// A sidecar beside `primary` that the index has not attached (yet): `NAME.EXT.xmp`.
    private static func sidecarOnDisk(for primary: PathBytes) -> PathBytes? {
        let path = PathBytes(primary.bytes + Array(".xmp".utf8))
        return FileManager.default.fileExists(atPath: path.displayString) ? path : nil
    }
}

/// Writes an XMP sidecar packet for descriptive values, as Lightroom lays them out:
/// `dc:subject` (every level of every keyword), `lr:hierarchicalSubject` (the paths),
/// `dc:title` and `dc:description` (`x-default`), `xmp:Rating`.
enum XMPPacketWriter {
    static func packet(_ description: DescriptiveMetadata) -> String {
        var properties: [String] = []
        let levels = description.keywords.flatMap { $0.split(separator: "|").map(String.init) }
        var seen: Set<String> = []
        let flat = levels.filter { seen.insert($0.lowercased()).inserted }
        if !flat.isEmpty { properties.append(list("dc:subject", "Bag", flat)) }
        let paths = description.keywords.filter { $0.contains("|") }
        if !paths.isEmpty { properties.append(list("lr:hierarchicalSubject", "Bag", paths)) }
        if let title = description.title { properties.append(alternative("dc:title", title)) }
        if let caption = description.caption { properties.append(alternative("dc:description", caption)) }
        if let rating = description.rating { properties.append("   <xmp:Rating>\(rating)</xmp:Rating>") }
        return """
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="MediaIndex">
             <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
              <rdf:Description rdf:about=""
                xmlns:dc="http://purl.org/dc/elements/1.1/"
                xmlns:xmp="http://ns.adobe.com/xap/1.0/"
                xmlns:lr="http://ns.adobe.com/lightroom/1.0/">
            \(properties.joined(separator: "\n"))
              </rdf:Description>
             </rdf:RDF>
            </x:xmpmeta>
            <?xpacket end="w"?>

            """
    }

    private static func list(_ name: String, _ kind: String, _ items: [String]) -> String {
        "   <\(name)>\n    <rdf:\(kind)>\n" + items.map { "     <rdf:li>\(escaped($0))</rdf:li>\n" }.joined()
            + "    </rdf:\(kind)>\n   </\(name)>"
    }

    private static func alternative(_ name: String, _ text: String) -> String {
        "   <\(name)>\n    <rdf:Alt>\n     <rdf:li xml:lang=\"x-default\">\(escaped(text))</rdf:li>\n    </rdf:Alt>\n   </\(name)>"
    }

    /// XML text with `&`, `<`, `>` and quotes escaped, and control characters XML forbids dropped.
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
