/// Terminal display width of text: wide East Asian characters and emoji take two columns,
/// combining marks and variation selectors none. Used to align rows and wrap plain-text digests.
public enum TextWidth {
    public static func width(of scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x20 || (0x7F..<0xA0).contains(v) { return 0 }
        if v < 0x300 { return 1 }
        switch v {
        case 0x300...0x36F, 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2064, 0xFE00...0xFE0F, 0xE0100...0xE01EF,
             0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F:
            return 0
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x1F300...0x1F64F, 0x1F680...0x1F6FF, 0x1F900...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x3FFFD,
             0x2614...0x2615, 0x2648...0x2653, 0x267F, 0x2693, 0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE,
             0x26C4...0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2...0x26F3, 0x26F5, 0x26FA, 0x26FD, 0x2705,
             0x270A...0x270B, 0x2728, 0x274C, 0x274E, 0x2753...0x2755, 0x2757, 0x2795...0x2797, 0x27B0, 0x27BF,
             0x2B1B...0x2B1C, 0x2B50, 0x2B55, 0x231A...0x231B, 0x23E9...0x23EC, 0x23F0, 0x23F3, 0x25FD...0x25FE:
            return 2
        default:
            return 1
        }
    }

    /// Emoji that are narrow by default but shown wide when followed by VS16 (U+FE0F), e.g. ✈️ ☂️.
    static func emojiPresentationWidth(_ text: String) -> Int {
        var total = 0
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            if scalar.value == 0xFE0F, let previous, width(of: previous) == 1 { total += 1 }
            total += width(of: scalar)
            previous = scalar
        }
        return total
    }

    /// Cuts `text` to at most `columns` display columns, ending with `…` when shortened.
    public static func truncate(_ text: String, to columns: Int) -> String {
        if isASCII(text) { return text.utf8.count <= columns ? text : String(text.prefix(columns - 1)) + "…" }
        return truncate(text, to: columns, measuredBy: displayWidth)
    }

    /// Cuts `text` to at most `limit` units of `measure` (columns, UTF-16 units …), whole characters
    /// only, ending with `…` (one unit) when shortened.
    public static func truncate(_ text: String, to limit: Int, measuredBy measure: (String) -> Int) -> String {
        guard measure(text) > limit else { return text }
        var out = ""
        var used = 0
        for character in text {
            let size = measure(String(character))
            if used + size > limit - 1 { break }
            out.append(character)
            used += size
        }
        return out + "…"
    }

    /// Display width counting emoji presentation sequences as two columns.
    public static func displayWidth(_ text: String) -> Int {
        isASCII(text) ? text.utf8.count : emojiPresentationWidth(text)
    }

    /// Printable ASCII only: every byte is one column (the common, fast case).
    static func isASCII(_ text: String) -> Bool {
        !text.hasByte { $0 < 0x20 || $0 >= 0x7F }
    }

    /// Pads with spaces to `columns` display columns.
    public static func pad(_ text: String, to columns: Int) -> String {
        let w = displayWidth(text)
        guard w < columns else { return text }
        return text + String(repeating: " ", count: columns - w)
    }

    /// `text` cleaned, cut and padded to exactly `columns` display columns (a listing's title column);
    /// printable ASCII, the common case, is measured once instead of three times.
    public static func fit(_ text: String, to columns: Int) -> String {
        var bytes: [UInt8] = []
        appendFit(text, to: columns, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `fit(text, to: columns)` to `bytes`; printable ASCII, the common case, is checked,
    /// measured and copied in one pass without building a String.
    public static func appendFit(_ text: String, to columns: Int, into bytes: inout [UInt8]) {
        let ascii = text.utf8.withContiguousStorageIfAvailable { stored -> Bool in
            guard stored.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return false }
            if stored.count > columns {
                bytes.append(contentsOf: stored.prefix(columns - 1))
                bytes.append(contentsOf: "…".utf8)
            } else {
                bytes.append(contentsOf: stored)
                bytes.append(contentsOf: repeatElement(0x20, count: columns - stored.count))
            }
            return true
        }
        if ascii != true { bytes.append(contentsOf: pad(truncate(clean(text), to: columns), to: columns).utf8) }
    }


    /// Replaces control characters (including newlines and ANSI escapes) with spaces so
    /// event text can never break a layout or inject terminal escapes.
    public static func clean(_ text: String) -> String {
        if isASCII(text) { return text }
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            out.append(scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) ? " " : scalar)
        }
        return String(out)
    }
}
