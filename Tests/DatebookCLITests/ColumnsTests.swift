@testable import DatebookCLI
import Foundation
import Testing

/// `help` and `templates` list names in a column as wide as the longest name: none runs into its text.
struct ColumnsTests {
    @Test func aLongNameWidensTheColumnForEveryRow() {
        let text = Columns.aligned([("add", "add an event"), ("a-very-long-template-name.html.mustache", "built-in")])
        #expect(text == "  add                                      add an event\n"
                + "  a-very-long-template-name.html.mustache  built-in\n")
    }

    @Test func wideCharactersCountTwoColumns() {
        let text = Columns.aligned([("日本", "x"), ("abcd", "y")])
        #expect(text == "  日本  x\n  abcd  y\n")
    }

    /// Every listed row keeps two spaces between its name and its text (`web-layout.html.mustache`
    /// is the longest built-in name; it once ran into `built-in`).
    @Test(arguments: [["templates"], ["help"], ["help", "add"], ["add", "--help"]])
    func everyRowOfTheListingSeparatesNameAndText(arguments: [String]) {
        let run = Sandbox().run(arguments)
        #expect(run.code == 0)
        #expect(!run.out.contains("mustachebuilt-in"), "\(run.out)")
        let rows = run.out.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("  datebook ") }
        #expect(rows.count >= 3)
        for row in rows {
            #expect(row.dropFirst(2).contains("  ") || !row.dropFirst(2).contains(" "), "\(row)")
        }
        if arguments == ["templates"] {
            #expect(run.out.range(of: "\n  web-layout.html.mustache  +built-in\n", options: .regularExpression) != nil, "\(run.out)")
        }
    }
}
