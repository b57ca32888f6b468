/// "Did you mean …?" for unknown words: the nearest candidate by edit distance (swaps count once).
public enum Suggestion {
    /// The closest of `candidates` to `word`, if it is close enough to be a plausible typo.
    public static func nearest(to word: String, in candidates: some Sequence<String>) -> String? {
        let lowered = word.lowercased()
        let candidates = Array(candidates)
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(lowered, candidate.lowercased())
            if best.map({ distance < $0.1 }) ?? true { best = (candidate, distance) }
        }
        guard let (candidate, distance) = best else { return nil }
        let allowed = max(1, min(3, candidate.count / 3))
        if distance <= allowed { return candidate }
        if candidate.lowercased().hasPrefix(lowered), lowered.count >= 2 { return candidate }
        return sameFirstWord(as: word, in: candidates)
    }

    /// A camelCase key whose first word only one candidate shares (`caInfo` → `caFile`,
    /// `quietTime` → `quietHours`): the same idea named with another second word.
    static func sameFirstWord(as word: String, in candidates: [String]) -> String? {
        func head(_ text: String) -> Substring? {
            guard let upper = text.firstIndex(where: \.isUppercase), upper != text.startIndex else { return nil }
            return text[..<upper]
        }
        guard let wordHead = head(word), wordHead.count >= 2 else { return nil }
        let matches = candidates.filter { head($0) == wordHead }
        return matches.count == 1 ? matches.first : nil
    }

    /// `" (did you mean 'x'?)"` or the empty string.
    public static func hint(for word: String, in candidates: some Sequence<String>) -> String {
        nearest(to: word, in: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
    /// neighbouring letters each cost 1, so the commonest typo (`lsit`) is as near as one wrong letter.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
