/// A tolerant, bounded XML reader for XMP packets: builds a small element tree with
/// namespace URIs resolved, and stops (keeping what it has) at the first error.
///
/// It exists instead of FoundationXML's `XMLParser` because XMP in the wild is often
/// malformed (truncated packets, undeclared prefixes, stray bytes), and a partial tree
/// is worth more to us than a parser error. It handles no DTDs and no external entities.
struct XMPTreeNode: Sendable {
    /// The namespace URI ("" when the prefix is undeclared and unknown).
    var namespace: String
    var localName: String
    var attributes: [XMPTreeAttribute] = []
    var children: [XMPTreeNode] = []
    var text: String = ""
}

struct XMPTreeAttribute: Sendable {
    var namespace: String
    var localName: String
    var value: String
}

enum XMLLimits {
    static let maxDepth = 64
    static let maxAttributesPerElement = 512
    static let maxElements = 100_000
}

/// Well-known prefixes, used only when a packet forgets to declare one.
let wellKnownXMPNamespaces: [String: String] = [
    "rdf": XMPNamespace.rdf, "x": "adobe:ns:meta/", "xml": XMPNamespace.xml,
    "exif": XMPNamespace.exif, "xmp": XMPNamespace.xmp, "tiff": XMPNamespace.tiff,
    "photoshop": XMPNamespace.photoshop, "dc": XMPNamespace.dc,
    "GPano": XMPNamespace.gPano, "GCamera": XMPNamespace.gCamera,
    "Container": XMPNamespace.container, "Item": XMPNamespace.containerItem,
]

struct XMLScanner {
    private let bytes: [UInt8]
    private var position = 0
    private(set) var warnings: [String] = []
    private var elementCount = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Parses the document; returns a synthetic root whose children are the top elements.
    mutating func parse() -> XMPTreeNode {
        var root = XMPTreeNode(namespace: "", localName: "#document")
        // Open elements with their raw qualified name and the prefix scope they opened.
        var stack: [(element: XMPTreeNode, qname: String, scope: [String: String])] = []
        var scope: [String: String] = [:]
        var depthWarningGiven = false

        func attach(_ element: XMPTreeNode) {
            if stack.isEmpty { root.children.append(element) } else { stack[stack.count - 1].element.children.append(element) }
        }

        while position < bytes.count {
            if bytes[position] != UInt8(ascii: "<") {
                let start = position
                while position < bytes.count, bytes[position] != UInt8(ascii: "<") { position += 1 }
                if !stack.isEmpty {
                    stack[stack.count - 1].element.text += decodeEntities(bytes[start..<position])
                }
                continue
            }
            // Markup.
            if hasPrefix("<?") { skip(past: "?>"); continue }
            if hasPrefix("<!--") { skip(past: "-->"); continue }
            if hasPrefix("<![CDATA[") {
                position += 9
                let start = position
                let end = find("]]>") ?? bytes.count
                if !stack.isEmpty {
                    stack[stack.count - 1].element.text += String(decoding: bytes[start..<end], as: UTF8.self)
                }
                position = min(bytes.count, end + 3)
                continue
            }
            if hasPrefix("<!") { skip(past: ">"); continue }
            if hasPrefix("</") {
                position += 2
                let name = readName()
                skip(past: ">")
                // Pop to the matching open element; tolerate mismatches by closing
                // everything above it, and ignore a close tag that matches nothing.
                guard let index = stack.lastIndex(where: { $0.qname == name }) else {
                    warn("a closing tag </\(name)> matches no open element")
                    continue
                }
                while stack.count > index + 1 {
                    let orphan = stack.removeLast()
                    warn("the element <\(orphan.qname)> is not closed")
                    scope = orphan.scope
                    attach(orphan.element)
                }
                let closed = stack.removeLast()
                scope = closed.scope
                attach(closed.element)
                continue
            }
            // Start tag.
            position += 1
            let qname = readName()
            guard !qname.isEmpty else {
                warn("a '<' is not followed by a tag name")
                break
            }
            var rawAttributes: [(String, String)] = []
            var selfClosing = false
            var tagClosed = false
            while position < bytes.count {
                skipSpaces()
                guard position < bytes.count else { break }
                let c = bytes[position]
                if c == UInt8(ascii: ">") { position += 1; tagClosed = true; break }
                if c == UInt8(ascii: "/") {
                    position += 1
                    if position < bytes.count, bytes[position] == UInt8(ascii: ">") { position += 1 }
                    selfClosing = true; tagClosed = true; break
                }
                let name = readName()
                guard !name.isEmpty else { position += 1; continue }  // stray byte: always advance
                skipSpaces()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
                    continue  // attribute without value: ignore
                }
                position += 1
                skipSpaces()
                guard position < bytes.count else { break }
                let quote = bytes[position]
                guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { continue }
                position += 1
                let start = position
                while position < bytes.count, bytes[position] != quote { position += 1 }
                let value = decodeEntities(bytes[start..<position])
                position = min(bytes.count, position + 1)
                if rawAttributes.count < XMLLimits.maxAttributesPerElement {
                    rawAttributes.append((name, value))
                } else if rawAttributes.count == XMLLimits.maxAttributesPerElement {
                    warn("an element has more than \(XMLLimits.maxAttributesPerElement) attributes; the rest are ignored")
                    rawAttributes.append(("", ""))
                }
            }
            guard tagClosed else {
                warn("the packet ends inside the tag <\(qname)>")
                break
            }
            elementCount += 1
            guard elementCount <= XMLLimits.maxElements else {
                warn("the packet has more than \(XMLLimits.maxElements) elements; the rest are ignored")
                break
            }
            let outerScope = scope
            var innerScope = scope
            for (name, value) in rawAttributes {
                if name == "xmlns" { innerScope[""] = value }
                else if name.hasPrefix("xmlns:") { innerScope[String(name.dropFirst(6))] = value }
            }
            var element = XMPTreeNode(namespace: resolve(qname, in: innerScope, isAttribute: false).namespace,
                                     localName: localPart(qname))
            for (name, value) in rawAttributes where !name.isEmpty && name != "xmlns" && !name.hasPrefix("xmlns:") {
                let resolved = resolve(name, in: innerScope, isAttribute: true)
                element.attributes.append(XMPTreeAttribute(namespace: resolved.namespace, localName: localPart(name), value: value))
            }
            if selfClosing {
                attach(element)
            } else if stack.count >= XMLLimits.maxDepth {
                if !depthWarningGiven {
                    warn("elements nest deeper than \(XMLLimits.maxDepth) levels; the deeper ones are ignored")
                    depthWarningGiven = true
                }
                // Skip this subtree by tracking depth on raw tags only.
                skipSubtree()
            } else {
                stack.append((element, qname, outerScope))
                scope = innerScope
            }
        }
        if !stack.isEmpty {
            warn("the packet ends with \(stack.count) element(s) still open")
            while let open = stack.popLast() { attach(open.element) }
        }
        return root
    }

    // MARK: - Lexing

    private mutating func warn(_ message: String) {
        if warnings.count < 8 { warnings.append("XMP: " + message) }
    }

    private func hasPrefix(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        return text.withUTF8Buffer { buffer in
            for i in 0..<count where bytes[position + i] != buffer[i] { return false }
            return true
        }
    }

    private func find(_ text: StaticString) -> Int? {
        let count = text.utf8CodeUnitCount
        return text.withUTF8Buffer { buffer -> Int? in
            var i = position
            while i + count <= bytes.count {
                var match = true
                for j in 0..<count where bytes[i + j] != buffer[j] { match = false; break }
                if match { return i }
                i += 1
            }
            return nil
        }
    }

    private mutating func skip(past text: StaticString) {
        if let at = find(text) { position = at + text.utf8CodeUnitCount } else { position = bytes.count }
    }

    private mutating func skipSpaces() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private static func isNameByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: ":"), UInt8(ascii: "_"),
             UInt8(ascii: "-"), UInt8(ascii: "."), 0x80...0xFF:
            return true
        default:
            return false
        }
    }

    private mutating func readName() -> String {
        let start = position
        while position < bytes.count, Self.isNameByte(bytes[position]) { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// Skips a start tag's content up to its matching end, counting raw nesting.
    private mutating func skipSubtree() {
        var depth = 1
        while position < bytes.count, depth > 0 {
            guard let open = bytes[position...].firstIndex(of: UInt8(ascii: "<")) else { position = bytes.count; return }
            position = open
            if hasPrefix("</") { depth -= 1; skip(past: ">"); continue }
            if hasPrefix("<?") || hasPrefix("<!") { skip(past: ">"); continue }
            guard let close = bytes[position...].firstIndex(of: UInt8(ascii: ">")) else { position = bytes.count; return }
            if close > position, bytes[close - 1] != UInt8(ascii: "/") { depth += 1 }
            position = close + 1
        }
    }

    private func localPart(_ qname: String) -> String {
        if let colon = qname.lastIndex(of: ":") { return String(qname[qname.index(after: colon)...]) }
        return qname
    }

    private func resolve(_ qname: String, in scope: [String: String], isAttribute: Bool) -> (namespace: String, prefix: String) {
        guard let colon = qname.firstIndex(of: ":") else {
            // Unprefixed attributes have no namespace; unprefixed elements take the default.
            return (isAttribute ? "" : (scope[""] ?? ""), "")
        }
        let prefix = String(qname[..<colon])
        if prefix == "xml" { return (XMPNamespace.xml, prefix) }
        return (scope[prefix] ?? wellKnownXMPNamespaces[prefix] ?? "", prefix)
    }

    private func decodeEntities(_ slice: ArraySlice<UInt8>) -> String {
        guard slice.contains(UInt8(ascii: "&")) else { return String(decoding: slice, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(slice.count)
        var i = slice.startIndex
        while i < slice.endIndex {
            let b = slice[i]
            guard b == UInt8(ascii: "&"),
                  let semicolon = slice[i...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                out.append(b); i += 1; continue
            }
            let name = String(decoding: slice[(i + 1)..<semicolon], as: UTF8.self)
            var replacement: String?
            switch name {
            case "lt": replacement = "<"
            case "gt": replacement = ">"
            case "amp": replacement = "&"
            case "quot": replacement = "\""
            case "apos": replacement = "'"
            default:
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    replacement = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) }
                } else if name.hasPrefix("#") {
                    replacement = UInt32(name.dropFirst(1)).flatMap(Unicode.Scalar.init).map { String($0) }
                }
            }
            if let replacement {
                out.append(contentsOf: replacement.utf8)
                i = semicolon + 1
            } else {
                out.append(b); i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
