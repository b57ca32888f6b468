extension PostgresStore {
    /// A PostgreSQL array literal (`{"a","b",NULL}`) for one `$n::text[]` or `$n::bigint[]` parameter.
    static func arrayLiteral(_ values: [String?]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(values.count * 40)
        for (n, value) in values.enumerated() {
            if n > 0 { bytes.append(UInt8(ascii: ",")) }
            guard let value else { bytes += "NULL".utf8; continue }
            bytes.append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
