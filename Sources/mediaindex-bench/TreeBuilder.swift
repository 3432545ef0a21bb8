import Foundation

/// Makes a tree of `count` files by hard-linking the corpus's files into numbered copies
/// of its folder structure (hard links: no disk space, and the content is real).
enum TreeBuilder {
    static func build(from source: String, into target: String, count: Int) throws -> Int {
        try build(from: source, into: target, count: count, extensions: nil).count
    }

    /// Like `build(from:into:count:)`, taking only files with these (lowercased)
    /// extensions; returns the paths made. With `copies`, each file is a copy, not a hard
    /// link: the indexer reads a hard link as another name of one file (one asset).
    static func build(from source: String, into target: String, count: Int,
                      extensions: Set<String>?, copies: Bool = false) throws -> [String] {
        let fileManager = FileManager.default
        guard let enumerator = fileManager.enumerator(atPath: source) else {
            throw BenchmarkError("cannot list \(source)")
        }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if fileManager.fileExists(atPath: source + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue,
               extensions.map({ $0.contains((relative as NSString).pathExtension.lowercased()) }) ?? true {
                files.append(relative)
            }
        }
        files.sort()
        guard !files.isEmpty else { throw BenchmarkError("\(source) holds no files") }
        var made: [String] = []
        var copy = 0
        while made.count < count {
            for relative in files where made.count < count {
                let destination = "\(target)/copy-\(copy)/\(relative)"
                try fileManager.createDirectory(atPath: (destination as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
                if copies || link(source + "/" + relative, destination) != 0 {
                    try fileManager.copyItem(atPath: source + "/" + relative, toPath: destination)
                }
                made.append(destination)
            }
            copy += 1
        }
        return made
    }
}
