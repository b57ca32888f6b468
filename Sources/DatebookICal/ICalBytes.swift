import DatebookCore
import Foundation

/// Byte-level helpers of the chunk scanner and the plain-component paths (``ICalSimpleTodo``,
/// ``ICalSimpleEvent``), which read lines without building Strings for what they skip.
enum ICalBytes {
    /// The index of the first `byte` in `bytes[from..<to]`, or `to`. `memchr` looks at many bytes
    /// per step, where a Swift loop looks at one.
    static func first(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int {
        guard from < to, let base = bytes.baseAddress else { return to }
        return memchr(base + from, Int32(byte), to - from).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base } ?? to
    }

    /// True when the first line break is a CR not followed by LF (classic Mac OS line ends).
    static func endsLinesWithCROnly(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let lineFeed = first(0x0A, in: bytes, from: 0, to: bytes.count)
        let carriageReturn = first(0x0D, in: bytes, from: 0, to: lineFeed)
        return carriageReturn < lineFeed && (carriageReturn + 1 == bytes.count || bytes[carriageReturn + 1] != 0x0A)
    }

    /// A copy of `bytes` in which every CR not followed by LF is an LF.
    static func lineFeedsForLoneCarriageReturns(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var copy = Array(bytes)
        for index in copy.indices where copy[index] == 0x0D && (index + 1 == copy.count || copy[index + 1] != 0x0A) {
            copy[index] = 0x0A
        }
        return copy
    }

    /// ASCII case-insensitive equality with `upper`, an upper-case ASCII word.
    static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ upper: [UInt8]) -> Bool {
        guard bytes.count == upper.count else { return false }
        // Written in capitals nearly always: one `memcmp` settles it.
        let same = upper.withUnsafeBufferPointer { upper -> Bool in
            // No address: both are empty.
            guard let base = bytes.baseAddress, let word = upper.baseAddress else { return true }
            return memcmp(base, word, bytes.count) == 0
        }
        if same { return true }
        return zip(bytes, upper).allSatisfy { ($0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0) == $1 }
    }

    /// Upper-case ASCII words and what each names, looked up ignoring ASCII case (`match`). A name is
    /// compared with the words of its length only: scanning the whole table was 3 % of a large
    /// import's instructions.
    struct Words<Name>: Sendable where Name: Sendable {
        private let byLength: [[(bytes: [UInt8], name: Name)]]

        init(_ words: [(String, Name)]) {
            var byLength = [[(bytes: [UInt8], name: Name)]](repeating: [], count: (words.map(\.0.utf8.count).max() ?? 0) + 1)
            for (word, name) in words { byLength[word.utf8.count].append((Array(word.utf8), name)) }
            self.byLength = byLength
        }

        /// What the word `bytes` spells names, ignoring ASCII case.
        func match(_ bytes: UnsafeBufferPointer<UInt8>) -> Name? {
            guard bytes.count < byLength.count else { return nil }
            let words = byLength[bytes.count]
            for index in words.indices where equalsIgnoringCase(bytes, words[index].bytes) { return words[index].name }
            return nil
        }
    }

    /// True when every byte is below 0x80. Eight bytes at a time: a byte-by-byte `allSatisfy` over
    /// every component (`ICalChunkScanner.firstLineNotUTF8`) and value was 7 % of a 100k import's parse.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let words = bytes.count / 8
        let raw = UnsafeRawPointer(base)
        for word in 0..<words where raw.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
            return false
        }
        return UnsafeBufferPointer(rebasing: bytes[(words * 8)...]).allSatisfy { $0 < 0x80 }
    }

    /// True when the bytes are UTF-8; ASCII (nearly every value) skips the validating initialiser.
    static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        isASCII(bytes) || String(validating: bytes, as: UTF8.self) != nil
    }

    /// The bytes as a String, or nil when they are not UTF-8; ASCII skips the validating initialiser.
    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        isASCII(bytes) ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
    }

    /// TEXT unescaping (RFC 5545 3.3.11).
    static func unescape(_ text: String) -> String {
        guard text.hasByte(where: { $0 == UInt8(ascii: "\\") }) else { return text }
        var out = ""
        var escaped = false
        for character in text {
            if escaped {
                switch character {
                case "n", "N": out.append("\n")
                default: out.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        if escaped { out.append("\\") }
        return out
    }
}
