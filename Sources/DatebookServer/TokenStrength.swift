import Foundation

/// How hard `serve.token` is to guess: its length times log2 of the alphabet its character classes
/// span (lower-case letters 26, upper-case 26, digits 10, anything else 33). The server refuses a
/// token under `minimumBits` (128): 22 characters of base64 (`openssl rand -base64 32` gives 44),
/// or 25 of hex (`openssl rand -hex 16` gives 32). An estimate from the characters alone, so
/// `aaaa…` of 28 letters passes: the rule stops short and single-class tokens, not every weak one.
public enum TokenStrength {
    public static let minimumBits = 128.0
    public static let hint = "make one with: openssl rand -base64 32"

    public static func bits(_ token: String) -> Double {
        var alphabet = 0
        let scalars = Array(token.unicodeScalars)
        if scalars.contains(where: { ("a"..."z").contains($0) }) { alphabet += 26 }
        if scalars.contains(where: { ("A"..."Z").contains($0) }) { alphabet += 26 }
        if scalars.contains(where: { ("0"..."9").contains($0) }) { alphabet += 10 }
        if scalars.contains(where: { !("a"..."z").contains($0) && !("A"..."Z").contains($0) && !("0"..."9").contains($0) }) { alphabet += 33 }
        guard alphabet > 1 else { return 0 }
        return Double(scalars.count) * log2(Double(alphabet))
    }

    /// Why `token` is too weak (its estimate, the rule and the hint), or nil when it is strong enough.
    public static func weakness(_ token: String, key: String) -> String? {
        let estimate = bits(token)
        guard estimate < minimumBits else { return nil }
        return "\(key) is too weak: about \(Int(estimate)) bits, at least \(Int(minimumBits)) needed "
            + "(\(token.unicodeScalars.count) characters; e.g. 22 of base64 or 25 of hex); \(hint)"
    }
}
