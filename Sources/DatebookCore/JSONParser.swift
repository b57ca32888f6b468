/// A JSON5 parser (comments, trailing commas, unquoted keys, single quotes, hex numbers,
/// `+`/`.` numbers) over UTF-8 bytes that records the line and column of every value.
///
/// Foundation's JSON5 decoding reports no position for syntax errors; this one does.
public struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0
    private static let maxDepth = 256

    public static func parse(_ bytes: [UInt8]) throws -> JSONNode {
        var parser = JSONParser(bytes: bytes)
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        try parser.skipSpace()
        let node = try parser.value()
        try parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the end of the document") }
        return node
    }

    public static func parse(_ text: String) throws -> JSONNode { try parse(Array(text.utf8)) }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var column: Int { index - lineStart + 1 }

    private func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(line: line, column: column, message: message)
    }

    private mutating func skipSpace() throws {
        while index < bytes.count {
            let b = bytes[index]
            if b == 0x0A { index += 1; line += 1; lineStart = index; continue }
            if b == 0x20 || b == 0x09 || b == 0x0D { index += 1; continue }
            if b == 0x2F, index + 1 < bytes.count {
                if bytes[index + 1] == 0x2F {
                    while index < bytes.count, bytes[index] != 0x0A { index += 1 }
                    continue
                }
                if bytes[index + 1] == 0x2A {
                    let startLine = line
                    index += 2
                    while index + 1 < bytes.count, !(bytes[index] == 0x2A && bytes[index + 1] == 0x2F) {
                        if bytes[index] == 0x0A { line += 1; lineStart = index + 1 }
                        index += 1
                    }
                    guard index + 1 < bytes.count else {
                        throw JSONSyntaxError(line: startLine, column: 1, message: "unclosed /* comment")
                    }
                    index += 2
                    continue
                }
            }
            if b == 0xC2, index + 1 < bytes.count, bytes[index + 1] == 0xA0 { index += 2; continue }
            return
        }
    }

    private mutating func value() throws -> JSONNode {
        guard index < bytes.count else { throw error("unexpected end of file, expected a value") }
        let (l, c) = (line, column)
        let b = bytes[index]
        let value: JSONNode.Value
        switch b {
        case UInt8(ascii: "{"): value = try object()
        case UInt8(ascii: "["): value = try array()
        case UInt8(ascii: "\""), UInt8(ascii: "'"): value = .string(try string())
        case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "0")...UInt8(ascii: "9"):
            value = .number(try number())
        default:
            let word = identifier()
            switch word {
            case "true": value = .bool(true)
            case "false": value = .bool(false)
            case "null": value = .null
            case "Infinity", "NaN": value = .number(word)
            case "": throw error("unexpected character '\(String(decoding: [b], as: UTF8.self))'")
            default: throw JSONSyntaxError(line: l, column: c, message: "unexpected word '\(word)' (strings need quotes)")
            }
        }
        return JSONNode(value, line: l, column: c)
    }

    private mutating func enter() throws {
        depth += 1
        guard depth <= Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth) levels") }
    }

    private mutating func object() throws -> JSONNode.Value {
        try enter()
        defer { depth -= 1 }
        let (openLine, openColumn) = (line, column)
        index += 1
        var members: [(key: String, value: JSONNode)] = []
        var seen = Set<String>()
        while true {
            try skipSpace()
            guard index < bytes.count else {
                throw JSONSyntaxError(line: openLine, column: openColumn, message: "unclosed object: expected '}'")
            }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            let (keyLine, keyColumn) = (line, column)
            let key: String
            if bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
                key = try string()
            } else {
                key = identifier()
                guard !key.isEmpty else { throw error("expected a key or '}'") }
            }
            guard seen.insert(key).inserted else {
                throw JSONSyntaxError(line: keyLine, column: keyColumn, message: "duplicate key '\(key)'")
            }
            try skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after key '\(key)'") }
            index += 1
            try skipSpace()
            members.append((key, try value()))
            try skipSpace()
            guard index < bytes.count else { continue }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "}") else { throw error("expected ',' or '}' after the value of '\(key)'") }
        }
    }

    private mutating func array() throws -> JSONNode.Value {
        try enter()
        defer { depth -= 1 }
        let (openLine, openColumn) = (line, column)
        index += 1
        var items: [JSONNode] = []
        while true {
            try skipSpace()
            guard index < bytes.count else {
                throw JSONSyntaxError(line: openLine, column: openColumn, message: "unclosed array: expected ']'")
            }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            items.append(try value())
            try skipSpace()
            guard index < bytes.count else { continue }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']' in array") }
        }
    }

    private mutating func identifier() -> String {
        let start = index
        while index < bytes.count {
            let b = bytes[index]
            let ok = (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b == 0x24
            guard ok, index > start || !(b >= 0x30 && b <= 0x39) else { break }
            index += 1
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func number() throws -> String {
        let start = index
        while index < bytes.count {
            let b = bytes[index]
            let ok = (b >= 0x30 && b <= 0x39) || b == 0x2E || b == 0x2B || b == 0x2D || b == 0x65 || b == 0x45
                || b == 0x78 || b == 0x58 || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46)
            guard ok else { break }
            index += 1
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        let body = text.hasPrefix("-") || text.hasPrefix("+") ? String(text.dropFirst()) : text
        let valid = body.lowercased().hasPrefix("0x") ? Int(body.dropFirst(2), radix: 16) != nil : Double(body) != nil
        guard valid else { throw JSONSyntaxError(line: line, column: start - lineStart + 1, message: "malformed number '\(text)'") }
        return text
    }

    private mutating func string() throws -> String {
        let quote = bytes[index]
        let (openLine, openColumn) = (line, column)
        index += 1
        var out: [UInt8] = []
        while index < bytes.count {
            let b = bytes[index]
            if b == quote { index += 1; return String(decoding: out, as: UTF8.self) }
            if b == 0x0A { break }
            if b != 0x5C { out.append(b); index += 1; continue }
            index += 1
            guard index < bytes.count else { break }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "0"): out.append(0x00)
            case UInt8(ascii: "u"): try unicodeEscape(into: &out)
            case 0x0A: line += 1; lineStart = index
            case 0x0D: if index < bytes.count, bytes[index] == 0x0A { index += 1 }; line += 1; lineStart = index
            default: out.append(e)
            }
        }
        throw JSONSyntaxError(line: openLine, column: openColumn, message: "unclosed string")
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count, bytes[index..<index + 4].allSatisfy({ Self.isHexDigit($0) }),
              let v = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        else { throw error("malformed \\u escape") }
        index += 4
        return v
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// A `\\uXXXX` escape; a surrogate pair becomes one scalar, a lone surrogate U+FFFD (a high
    /// surrogate followed by anything but a low one leaves that escape to be read on its own).
    private mutating func unicodeEscape(into out: inout [UInt8]) throws {
        var scalar = try hex4()
        if (0xD800...0xDBFF).contains(scalar), index + 1 < bytes.count,
           bytes[index] == 0x5C, bytes[index + 1] == UInt8(ascii: "u") {
            let escape = index
            index += 2
            let low = try hex4()
            if (0xDC00...0xDFFF).contains(low) {
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else {
                index = escape
            }
        }
        let s = Unicode.Scalar(scalar) ?? "\u{FFFD}"
        out.append(contentsOf: Array(String(Character(s)).utf8))
    }
}
