import Foundation
import Testing

@Suite("No function in MediaIndex, the CLI, the server or the interface module is longer than 80 lines")
struct FunctionLengthTests {
    static let limit = 80
    static let modules = ["MediaIndex", "MediaIndexCLI", "MediaIndexServer", "MediaIndexInterface", "mediaindex"]

    /// Every function of the modules' sources, with its file (relative to the package).
    static func functions() throws -> [(file: String, function: FunctionLengths.Function)] {
        let root = ArchitectureDrawingTests.packageRoot
        var found: [(String, FunctionLengths.Function)] = []
        for module in modules {
            let folder = root.appendingPathComponent("Sources/\(module)")
            let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
            for file in files.sorted() where file.hasSuffix(".swift") {
                let source = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                found += FunctionLengths(source: source).functions.map { ("Sources/\(module)/\(file)", $0) }
            }
        }
        return found
    }

    @Test("every function is at most 80 lines, from its declaration to its closing brace")
    func noLongFunctions() throws {
        let all = try Self.functions()
        #expect(all.count > 1000, "the sources were found and read")
        let long = all.filter { $0.function.length > Self.limit }.map {
            "\($0.file):\($0.function.line) \($0.function.name) is \($0.function.length) lines"
        }
        #expect(long.isEmpty, "split these into named steps:\n\(long.joined(separator: "\n"))")
    }

    @Test("the measure counts a body's lines, and no brace in a string or a comment")
    func measure() {
        let source = #"""
            protocol P {
                func requirement() -> Int
                init(value: Int)
            }
            struct S {
                init() {
                    let text = "}}} \(1) {"
                    // }
                    /* { */
                    _ = text
                }

                func f<T>(_ value: T,
                          default: () -> Int = { 0 }) -> Int where T: Equatable {
                    let raw = #"}"#
                    let multi = """
                        }
                        """
                    return raw.count + multi.count
                }
                subscript(index: Int) -> Int { index }
                deinit {}
            }
            """#
        let functions = FunctionLengths(source: source).functions
        #expect(functions == [
            .init(name: "init", line: 6, length: 6),
            .init(name: "func f", line: 13, length: 8),
            .init(name: "subscript", line: 21, length: 1),
            .init(name: "deinit", line: 22, length: 1),
        ])
    }
}
