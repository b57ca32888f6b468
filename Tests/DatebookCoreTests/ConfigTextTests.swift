@testable import DatebookCore
import Testing

/// Adding to JSON5 text keeps everything else byte for byte: comments, strings that look like
/// brackets or comments, the user's commas and indentation.
struct ConfigTextTests {
    @Test(arguments: [
        // An empty inline object.
        ("{ channels: {} }", ["channels"], "a: 1", "{ channels: {a: 1} }"),
        // The closing brace on its own line, the last member without a comma and with a comment.
        ("{\n  channels: {\n    x: { type: \"desktop\" }  // mine\n  },\n}\n", ["channels"], "y: 2",
         "{\n  channels: {\n    x: { type: \"desktop\" },  // mine\n    y: 2,\n  },\n}\n"),
        // A trailing comma already there; strings holding } and // are not structure.
        ("{\n  c: {\n    x: \"}//{\", /* } */\n  },\n}", ["c"], "y: 2", "{\n  c: {\n    x: \"}//{\", /* } */\n    y: 2,\n  },\n}"),
        // The top-level object.
        ("// top\n{\n  locale: 'de_DE', // it's mine\n}\n", [], "channels: {}", "// top\n{\n  locale: 'de_DE', // it's mine\n  channels: {},\n}\n"),
    ] as [(String, [String], String, String)])
    func addsAMemberAtTheEndOfAnObject(text: String, path: [String], member: String, expected: String) throws {
        var config = ConfigText(text)
        let parts = member.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        try config.addMember(parts[0], parts[1], in: path)
        #expect(config.text == expected)
        _ = try JSONParser.parse(config.text)
    }

    @Test(arguments: [
        ("{ alerts: { channels: [] } }", "{ alerts: { channels: [\"a\"] } }"),
        ("{ alerts: { channels: [\"x\"] } }", "{ alerts: { channels: [\"x\", \"a\"] } }"),
        ("{ alerts: { channels: [\"x\",] } }", "{ alerts: { channels: [\"x\", \"a\"] } }"),
        ("{ alerts: { channels: [\n    \"x\"\n  ] } }", "{ alerts: { channels: [\n    \"x\",\n    \"a\",\n  ] } }"),
    ])
    func addsAnElementAtTheEndOfAnArray(text: String, expected: String) throws {
        var config = ConfigText(text)
        try config.addElement("\"a\"", in: ["alerts", "channels"])
        #expect(config.text == expected)
    }

    @Test func aPathThatIsNotAContainerIsNamed() {
        var config = ConfigText("{ channels: [] }")
        #expect(throws: ConfigText.EditError.notAnObject("channels")) { try config.addMember("a", "1", in: ["channels"]) }
    }
}
