import Foundation
import Testing

@testable import DatebookCore

/// The byte-level serialiser must escape exactly what the scalar-level one did.
@Suite struct JSONValueTests {
    @Test(arguments: [
        ("plain", #""plain""#),
        ("quote \" backslash \\", #""quote \" backslash \\""#),
        ("tab\tcr\rlf\n", #""tab\tcr\rlf\n""#),
        ("\u{0}\u{1f}\u{7f}", "\"\\u0000\\u001f\u{7f}\""),
        ("line\u{2028}para\u{2029}end", #""line\u2028para\u2029end""#),
        ("\u{2027}\u{202A}€", "\"\u{2027}\u{202A}€\""),
        ("Grüße 日本語 🎂 \u{85}", "\"Grüße 日本語 🎂 \u{85}\""),
        ("", #""""#),
    ])
    func stringEscaping(input: String, expected: String) throws {
        #expect(JSONValue.string(input).serialized == expected)
        #expect(JSONValue.string(input).data == Data(expected.utf8))
        let decoded = try JSONSerialization.jsonObject(with: Data("[\(expected)]".utf8)) as? [String]
        #expect(decoded == [input])
    }

    @Test func keysSortByUTF8BytesNotByUnicodeOrder() {
        let value: JSONValue = ["é": 1, "z": 2, "Z": 3, "a": [.double(1.5), .double(2), .bool(false)]]
        #expect(value.serialized == #"{"Z":3,"a":[1.5,2,false],"z":2,"é":1}"#)
    }
}
