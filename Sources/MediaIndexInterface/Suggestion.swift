/// Finds the name a user probably meant, for "Did you mean …?".
public enum Suggestion {
    /// The candidate nearest to `typed`: within two edits (a swap of neighbours counts
    /// as one), or one that `typed` abbreviates (at least three characters); nil when
    /// none is near. Of equally near ones, one that holds `typed`'s letters in order
    /// (`jpeg` for `jpg`, rather than `bpg`) comes first.
    public static func closest(to typed: String, among candidates: [String]) -> String? {
        var best: (name: String, score: Double)?
        for candidate in Set(candidates).sorted() {
            let distance = editDistance(typed, candidate)
            let isAbbreviation = typed.count >= 3 && candidate.hasPrefix(typed)
            guard distance <= 2 || isAbbreviation else { continue }
            let holdsLetters = isSubsequence(typed, of: candidate) || isSubsequence(candidate, of: typed)
            let score = Double(isAbbreviation ? min(distance, 1) : distance) - (holdsLetters ? 0.5 : 0)
            if let current = best, current.score <= score { continue }
            best = (candidate, score)
        }
        return best?.name
    }

    /// Whether `short`'s characters appear in `long` in the same order.
    static func isSubsequence(_ short: String, of long: String) -> Bool {
        var remaining = long[...]
        for character in short {
            guard let index = remaining.firstIndex(of: character) else { return false }
            remaining = remaining[remaining.index(after: index)...]
        }
        return true
    }

    /// The sentence refusing `text` for `option`, which takes one of `valid`: every valid
    /// value, and the nearest one when `text` is close to it
    /// (`--type takes one of jpeg, png, …, not 'jpg'; did you mean 'jpeg'?`).
    public static func refusal(of text: String, for option: String, valid: [String]) -> String {
        var message = "\(option) takes one of \(valid.joined(separator: ", ")), not '\(text)'"
        if let suggestion = closest(to: text.lowercased(), among: valid) { message += "; did you mean '\(suggestion)'?" }
        return message
    }

    /// Optimal-string-alignment distance: insertions, deletions, substitutions and
    /// transpositions of adjacent characters.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previousPrevious[j - 2] + 1)
                }
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }
}
