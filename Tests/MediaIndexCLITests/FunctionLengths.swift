import Foundation

/// The functions of a Swift source file and their lengths in lines, from the line of the
/// declaration to the line of its closing brace. A function is a `func`, `init`, `deinit` or
/// `subscript` with a body; comments and string literals are blanked before the braces are
/// counted, so a brace in a string or a comment does not end a body.
struct FunctionLengths {
    struct Function: Equatable {
        var name: String
        var line: Int
        var length: Int
    }

    private(set) var functions: [Function] = []

    init(source: String) {
        let code = Array(Self.blankingCommentsAndStrings(Array(source.unicodeScalars)))
        var index = 0
        while index < code.count {
            if let keyword = Self.declarationKeyword(in: code, at: index) {
                let nameEnd = Self.identifierEnd(in: code, from: index + keyword.count)
                if let body = Self.bodyStart(in: code, from: nameEnd), let end = Self.matchingBrace(in: code, from: body) {
                    let name = String(String.UnicodeScalarView(code[index..<nameEnd]))
                    let first = Self.lineNumber(in: code, at: index), last = Self.lineNumber(in: code, at: end)
                    functions.append(Function(name: name.split(separator: " ").joined(separator: " "),
                                              line: first, length: last - first + 1))
                }
                index += keyword.count
            } else {
                index += 1
            }
        }
    }

    private static let keywords = ["func", "init", "deinit", "subscript"]

    /// The keyword starting at `index`, when it is a whole word.
    private static func declarationKeyword(in code: [Unicode.Scalar], at index: Int) -> String? {
        if index > 0, isIdentifier(code[index - 1]) || code[index - 1] == "." { return nil }
        for keyword in keywords {
            let scalars = Array(keyword.unicodeScalars)
            guard index + scalars.count <= code.count, Array(code[index..<index + scalars.count]) == scalars else { continue }
            if index + scalars.count < code.count, isIdentifier(code[index + scalars.count]) { continue }
            return keyword
        }
        return nil
    }

    /// Past the function's name: `func name`, `init?`, `subscript`.
    private static func identifierEnd(in code: [Unicode.Scalar], from start: Int) -> Int {
        var index = start
        while index < code.count, code[index] == " " { index += 1 }
        while index < code.count, isIdentifier(code[index]) || "?!".unicodeScalars.contains(code[index]) { index += 1 }
        return index
    }

    /// The opening brace of the body: the first `{` outside parentheses, brackets and angle
    /// brackets. A requirement without a body (a protocol's) meets a line that starts another
    /// declaration, or a closing brace, first.
    private static func bodyStart(in code: [Unicode.Scalar], from start: Int) -> Int? {
        var depth = 0, index = start
        while index < code.count {
            switch code[index] {
            case "(", "[": depth += 1
            case ")", "]": depth -= 1
            case "{" where depth == 0: return index
            case "}" where depth == 0: return nil
            case "\n" where depth == 0:
                var next = index + 1
                while next < code.count, code[next] == " " || code[next] == "\t" { next += 1 }
                if startsDeclaration(code, at: next) { return nil }
            default: break
            }
            index += 1
        }
        return nil
    }

    private static let declarationStarts = ["func ", "init", "var ", "let ", "case ", "static ", "public ", "private ",
                                            "internal ", "package ", "fileprivate ", "mutating ", "nonmutating ",
                                            "@", "subscript", "typealias ", "associatedtype ", "deinit", "#",
                                            "struct ", "class ", "enum ", "protocol ", "extension ", "//"]

    private static func startsDeclaration(_ code: [Unicode.Scalar], at index: Int) -> Bool {
        declarationStarts.contains { start in
            let scalars = Array(start.unicodeScalars)
            return index + scalars.count <= code.count && Array(code[index..<index + scalars.count]) == scalars
        }
    }

    private static func matchingBrace(in code: [Unicode.Scalar], from open: Int) -> Int? {
        var depth = 0
        for index in open..<code.count {
            if code[index] == "{" { depth += 1 }
            if code[index] == "}" { depth -= 1; if depth == 0 { return index } }
        }
        return nil
    }

    private static func lineNumber(in code: [Unicode.Scalar], at index: Int) -> Int {
        code[..<index].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
    }

    private static func isIdentifier(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || CharacterSet.alphanumerics.contains(scalar)
    }

    /// The source with every comment and string literal's contents replaced by spaces (newlines
    /// kept, so line numbers hold). Interpolations inside strings are blanked too: their braces
    /// never reach past the string.
    static func blankingCommentsAndStrings(_ source: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var out = source, index = 0
        func blank(_ range: Range<Int>) { for i in range where out[i] != "\n" { out[i] = " " } }
        func hasPrefix(_ text: String, at i: Int) -> Bool {
            let scalars = Array(text.unicodeScalars)
            return i + scalars.count <= source.count && Array(source[i..<i + scalars.count]) == scalars
        }
        while index < source.count {
            if hasPrefix("//", at: index) {
                var end = index
                while end < source.count, source[end] != "\n" { end += 1 }
                blank(index..<end); index = end
            } else if hasPrefix("/*", at: index) {
                var end = index + 2, depth = 1
                while end < source.count, depth > 0 {
                    if hasPrefix("/*", at: end) { depth += 1; end += 2 } else if hasPrefix("*/", at: end) { depth -= 1; end += 2 } else { end += 1 }
                }
                blank(index..<end); index = end
            } else if source[index] == "#" || source[index] == "\"" {
                var hashes = 0, start = index
                while start < source.count, source[start] == "#" { hashes += 1; start += 1 }
                guard start < source.count, source[start] == "\"" else { index = max(start, index + 1); continue }
                let multiline = hasPrefix("\"\"\"", at: start)
                let quote = (multiline ? "\"\"\"" : "\"") + String(repeating: "#", count: hashes)
                var end = start + (multiline ? 3 : 1)
                while end < source.count, !hasPrefix(quote, at: end) {
                    if source[end] == "\\" && hashes == 0 { end += 1 }
                    if !multiline && source[end] == "\n" { break }
                    end += 1
                }
                end = min(source.count, end + quote.unicodeScalars.count)
                blank(index..<end); index = end
            } else {
                index += 1
            }
        }
        return out
    }
}
