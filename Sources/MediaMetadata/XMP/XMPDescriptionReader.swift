/// Reads the descriptive properties of an XMP packet's tree: keywords in their
/// families, title and description, rating and label, people and their regions,
/// creator and rights.
enum XMPDescriptionReader {
    static let lightroom = "http://ns.adobe.com/lightroom/1.0/"
    static let digiKam = "http://www.digikam.org/ns/1.0/"
    static let microsoftPhoto = "http://ns.microsoft.com/photo/1.0/"
    static let microsoftRegionInfo = "http://ns.microsoft.com/photo/1.2/"
    static let microsoftRegions = "http://ns.microsoft.com/photo/1.2/t/RegionInfo#"
    static let microsoftRegion = "http://ns.microsoft.com/photo/1.2/t/Region#"
    static let mwgRegions = "http://www.metadataworkinggroup.com/schemas/regions/"
    static let area = "http://ns.adobe.com/xmp/sType/Area#"
    static let iptcExtension = "http://iptc.org/std/Iptc4xmpExt/2008-02-29/"

    /// The descriptive properties of the top-level `rdf:Description`s; the first value of
    /// a property wins.
    static func read(_ root: XMPTreeNode) -> XMPDescription {
        var found: [String: XMPTreeNode] = [:]
        let descriptions = topDescriptions(root, depth: 0)
        let named = namedNodes(root, depth: 0)
        for description in descriptions {
            for property in description.fields where found[property.key] == nil {
                found[property.key] = property.resolvingNodeID(in: named)
            }
        }
        func node(_ namespace: String, _ name: String) -> XMPTreeNode? { found[namespace + "\u{1}" + name] }
        func list(_ namespace: String, _ name: String) -> [String] {
            DescriptiveText.clean(node(namespace, name)?.listItems.compactMap(\.textValue) ?? [])
        }
        func text(_ namespace: String, _ name: String) -> String? {
            DescriptiveText.clean(node(namespace, name)?.alternativeText)
        }
        var result = XMPDescription()
        result.subject = list(XMPNamespace.dc, "subject")
        result.hierarchicalSubject = list(lightroom, "hierarchicalSubject")
        result.tagsList = list(digiKam, "TagsList")
        result.lastKeywordXMP = list(microsoftPhoto, "LastKeywordXMP")
        result.title = text(XMPNamespace.dc, "title")
        result.description = text(XMPNamespace.dc, "description")
        result.rating = text(XMPNamespace.xmp, "Rating").flatMap { Double($0) }
        result.microsoftRating = text(microsoftPhoto, "Rating").flatMap { Double($0) }
        result.label = text(XMPNamespace.xmp, "Label")
        result.creator = list(XMPNamespace.dc, "creator")
        result.rights = text(XMPNamespace.dc, "rights")
        result.personInImage = list(iptcExtension, "PersonInImage")
        result.regions = (node(mwgRegions, "Regions").map(mwgFaces) ?? [])
            + (node(microsoftRegionInfo, "RegionInfo").map(microsoftFaces) ?? [])
        return result
    }

    /// The `rdf:Description`s directly under an `rdf:RDF`.
    private static func topDescriptions(_ node: XMPTreeNode, depth: Int) -> [XMPTreeNode] {
        guard depth < 8 else { return [] }
        if node.isRDF("RDF") { return node.children.filter { $0.isRDF("Description") } }
        return node.children.flatMap { topDescriptions($0, depth: depth + 1) }
    }

    /// The nodes an `rdf:nodeID` names (as f-spot writes a list apart from its property).
    private static func namedNodes(_ node: XMPTreeNode, depth: Int) -> [String: XMPTreeNode] {
        guard depth < 8 else { return [:] }
        if node.isRDF("RDF") {
            var named: [String: XMPTreeNode] = [:]
            for child in node.children {
                if let id = child.attributes.first(where: { $0.namespace == XMPNamespace.rdf && $0.localName == "nodeID" })?.value {
                    named[id] = child
                }
            }
            return named
        }
        return node.children.reduce(into: [:]) { $0.merge(namedNodes($1, depth: depth + 1)) { first, _ in first } }
    }

    /// Named faces of `mwg-rs:Regions/mwg-rs:RegionList`: type `Face` (or no type), with
    /// a normalised `mwg-rs:Area` (centre and size) where given.
    static func mwgFaces(_ regions: XMPTreeNode) -> [PersonInImage] {
        guard let list = regions.field(mwgRegions, "RegionList") else { return [] }
        return list.listItems.prefix(DescriptiveText.maxItems).compactMap { item -> PersonInImage? in
            let type = item.field(mwgRegions, "Type")?.textValue
            guard type == nil || type == "Face",
                  let name = DescriptiveText.clean(item.field(mwgRegions, "Name")?.textValue) else { return nil }
            var face: FaceRectangle?
            if let area = item.field(mwgRegions, "Area"), (area.field(area: "unit")?.textValue ?? "normalized") == "normalized",
               let x = area.number(area: "x"), let y = area.number(area: "y"),
               let w = area.number(area: "w"), let h = area.number(area: "h") {
                face = FaceRectangle(centreX: x, centreY: y, width: w, height: h)
            }
            return PersonInImage(name: name, face: face)
        }
    }

    /// Named faces of Windows Photo Gallery's `MP:RegionInfo/MPRI:Regions`: a
    /// `MPReg:Rectangle` of "x, y, w, h" (top left and size, fractions) and
    /// `MPReg:PersonDisplayName`.
    static func microsoftFaces(_ info: XMPTreeNode) -> [PersonInImage] {
        guard let list = info.field(microsoftRegions, "Regions") else { return [] }
        return list.listItems.prefix(DescriptiveText.maxItems).compactMap { item -> PersonInImage? in
            guard let name = DescriptiveText.clean(item.field(microsoftRegion, "PersonDisplayName")?.textValue) else { return nil }
            let numbers = (item.field(microsoftRegion, "Rectangle")?.textValue ?? "")
                .split(separator: ",").compactMap { Double(String($0).trimmingSpacesAndNULs()) }
            let face = numbers.count == 4 ? FaceRectangle(validX: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]) : nil
            return PersonInImage(name: name, face: face)
        }
    }
}

extension XMPTreeNode {
    var key: String { namespace + "\u{1}" + localName }

    func isRDF(_ name: String) -> Bool { namespace == XMPNamespace.rdf && localName == name }

    /// An empty property that points at a node by `rdf:nodeID`, given that node's content.
    func resolvingNodeID(in named: [String: XMPTreeNode]) -> XMPTreeNode {
        guard children.isEmpty, text.trimmingSpacesAndNULs().isEmpty,
              let id = attributes.first(where: { $0.namespace == XMPNamespace.rdf && $0.localName == "nodeID" })?.value,
              let target = named[id] else { return self }
        var resolved = self
        resolved.children = target.isRDF("Description") ? target.children : [target]
        return resolved
    }

    /// The fields of a structure (or of a `rdf:Description`): its attributes as leaf
    /// nodes, its property elements, and those of a nested `rdf:Description`.
    var fields: [XMPTreeNode] {
        var result: [XMPTreeNode] = []
        for attribute in attributes where attribute.namespace != XMPNamespace.rdf && attribute.namespace != XMPNamespace.xml
            && !attribute.namespace.isEmpty {
            result.append(XMPTreeNode(namespace: attribute.namespace, localName: attribute.localName, text: attribute.value))
        }
        for child in children {
            if child.isRDF("Description") { result += child.fields } else if !child.namespace.isEmpty, child.namespace != XMPNamespace.rdf {
                result.append(child)
            }
        }
        return result
    }

    /// The field `localName` of this structure.
    func field(_ namespace: String, _ localName: String) -> XMPTreeNode? {
        fields.first { $0.namespace == namespace && $0.localName == localName }
    }

    func field(area name: String) -> XMPTreeNode? { field(XMPDescriptionReader.area, name) }

    func number(area name: String) -> Double? {
        field(area: name)?.textValue.flatMap { Double($0.trimmingSpacesAndNULs()) }
    }

    /// The items of a `rdf:Bag`, `rdf:Seq` or `rdf:Alt` value; a value written as plain
    /// text is a list of one.
    var listItems: [XMPTreeNode] {
        if let container = children.first(where: { $0.isRDF("Bag") || $0.isRDF("Seq") || $0.isRDF("Alt") }) {
            return container.children.filter { $0.isRDF("li") }
        }
        return textValue == nil ? [] : [self]
    }

    /// An `rdf:Alt`'s `x-default` item (else its first), or a plain text value.
    var alternativeText: String? {
        let items = listItems
        let isDefault = { (item: XMPTreeNode) in
            item.attributes.contains { $0.namespace == XMPNamespace.xml && $0.localName == "lang" && $0.value == "x-default" }
        }
        return (items.first(where: isDefault) ?? items.first)?.textValue
    }

    /// The text of a leaf (or its `rdf:resource`); nil for a structure or blank text.
    var textValue: String? {
        if children.contains(where: { !$0.namespace.isEmpty }) { return nil }
        let trimmed = text.trimmingSpacesAndNULs()
        if !trimmed.isEmpty { return trimmed }
        return attributes.first { $0.namespace == XMPNamespace.rdf && $0.localName == "resource" }?.value
    }
}
