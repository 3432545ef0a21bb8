import Testing
@testable import MediaIndexCLI
import MediaIndexInterface

@Suite("JSON: an ordered value and its serializer")
struct JSONTests {
    @Test("objects keep their keys in the order they were written")
    func keyOrder() {
        let value: JSON = ["id": "a1", "path": "/p", "date": nil, "size": 12, "favorite": true]
        #expect(value.compactText == #"{"id":"a1","path":"/p","date":null,"size":12,"favorite":true}"#)
    }

    @Test("pretty output indents by two spaces and writes empty containers inline")
    func prettyForm() {
        let value: JSON = ["id": "a1", "tags": ["x", 2], "empty": [], "nested": ["none": [:]]]
        #expect(value.prettyText == """
            {
              "id": "a1",
              "tags": [
                "x",
                2
              ],
              "empty": [],
              "nested": {
                "none": {}
              }
            }
            """)
    }

    @Test("escapes quotes, backslashes and every control character; keeps other text as is")
    func escaping() {
        let value = JSON.string("a\"b\\c\n\r\t\u{08}\u{0C}\u{01}\u{1F}/é😀\u{7F}\u{2028}")
        #expect(value.compactText == #""a\"b\\c\n\r\t\b\f\u0001\u001f/é😀"# + "\u{7F}" + #"\u2028""#)
    }

    @Test("doubles print in their shortest round-tripping form; NaN and infinities become null")
    func numberFormatting() {
        #expect(JSON.double(2.635).compactText == "2.635")
        #expect(JSON.double(0.1 + 0.2).compactText == "0.30000000000000004")
        #expect(JSON.double(29.97002997002997).compactText == "29.97002997002997")
        #expect(JSON.double(5).compactText == "5.0")
        #expect(JSON.double(-48.8566).compactText == "-48.8566")
        #expect(JSON.double(1e-7).compactText == "1e-07")
        #expect(JSON.double(.nan).compactText == "null")
        #expect(JSON.double(-.infinity).compactText == "null")
        #expect(JSON.int(-9_223_372_036_854_775_808).compactText == "-9223372036854775808")
    }

    @Test("optional-taking initialisers give null for nil")
    func optionals() {
        let missing: String? = nil
        let duration: Double? = 3.5
        #expect(JSON(missing) == .null)
        #expect(JSON(duration) == .double(3.5))
        #expect(JSON(Int64(7)) == .int(7))
    }

    @Test("equality compares object members in order")
    func equality() {
        #expect(JSON.object([("a", 1), ("b", 2)]) == JSON.object([("a", 1), ("b", 2)]))
        #expect(JSON.object([("a", 1), ("b", 2)]) != JSON.object([("b", 2), ("a", 1)]))
    }
}
