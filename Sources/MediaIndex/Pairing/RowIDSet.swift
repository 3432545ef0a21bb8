/// A set of SQLite row ids, kept as a bitmap in pages of 65,536 ids, iterated in
/// ascending order.
///
/// An index run's pairing keeps sets of the files and assets it touched. On a first index
/// of a million files those are a million ids each: 16 to 32 MB as `Set<Int64>`, and as
/// much again to sort them. Row ids are dense (SQLite hands them out from one upwards), so
/// here a million of them take 128 KB, and ascending order, which the pairer wants for
/// stable results, costs nothing.
struct RowIDSet: Sequence, Equatable {
    private static let idsPerPage = 1 << 16
    private static let wordsPerPage = idsPerPage / 64

    /// Pages by their first id's page number; a page exists only while it holds an id.
    private var pages: [Int64: [UInt64]] = [:]
    /// How many ids the set holds.
    private(set) var count = 0

    init() {}

    init<S: Sequence>(_ ids: S) where S.Element == Int64 {
        for id in ids { insert(id) }
    }

    var isEmpty: Bool { count == 0 }

    private static func locate(_ id: Int64) -> (page: Int64, word: Int, bit: UInt64) {
        // Floor division, so negative ids (never given by SQLite, but legal) work too.
        let page = id >> 16
        let offset = Int(id - page << 16)
        return (page, offset >> 6, 1 << UInt64(offset & 63))
    }

    func contains(_ id: Int64) -> Bool {
        let (page, word, bit) = Self.locate(id)
        guard let words = pages[page] else { return false }
        return words[word] & bit != 0
    }

    /// Adds `id`; returns whether it was new.
    @discardableResult
    mutating func insert(_ id: Int64) -> Bool {
        let (page, word, bit) = Self.locate(id)
        var inserted = false
        pages[page, default: Array(repeating: 0, count: Self.wordsPerPage)].withUnsafeMutableBufferPointer { words in
            if words[word] & bit == 0 {
                words[word] |= bit
                inserted = true
            }
        }
        if inserted { count += 1 }
        return inserted
    }

    /// Removes `id`; returns whether it was there.
    @discardableResult
    mutating func remove(_ id: Int64) -> Bool {
        let (page, word, bit) = Self.locate(id)
        guard pages[page].map({ $0[word] & bit != 0 }) == true else { return false }
        pages[page]![word] &= ~bit
        count -= 1
        if pages[page]!.allSatisfy({ $0 == 0 }) { pages[page] = nil }
        return true
    }

    /// The ids in ascending order.
    func makeIterator() -> Iterator {
        Iterator(pages: pages.sorted { $0.key < $1.key })
    }

    struct Iterator: IteratorProtocol {
        fileprivate let pages: [(key: Int64, value: [UInt64])]
        private var page = 0, word = 0
        private var bits: UInt64 = 0

        fileprivate init(pages: [(key: Int64, value: [UInt64])]) {
            self.pages = pages
            if let first = pages.first { bits = first.value[0] }
        }

        mutating func next() -> Int64? {
            while page < pages.count {
                if bits != 0 {
                    let bit = bits.trailingZeroBitCount
                    bits &= bits - 1
                    return pages[page].key << 16 + Int64(word * 64 + bit)
                }
                word += 1
                if word == RowIDSet.wordsPerPage {
                    word = 0
                    page += 1
                    guard page < pages.count else { return nil }
                }
                bits = pages[page].value[word]
            }
            return nil
        }
    }
}
