@testable import DatebookCLI
import DatebookCore
import DatebookTestSupport
import Foundation
import Testing

/// README's command table documents every option each command's spec accepts, so the reference
/// cannot drift from `--help`.
struct ReadmeOptionTests {
    static let readme = (try? String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""

    /// The command table's rows for `name`: lines starting `| \`datebook NAME` (or one of its aliases).
    static func rows(of spec: CommandSpec) -> [Substring] {
        let names = [spec.name] + spec.aliases
        return readme.split(separator: "\n").filter { line in
            names.contains { line.hasPrefix("| `datebook \($0) ") || line.hasPrefix("| `datebook \($0)`") }
        }
    }

    /// Whether `option` appears in `text` as a whole word (`--color` is not found in `--event-color`).
    static func mentions(_ text: some StringProtocol, _ option: String) -> Bool {
        var rest = text[...]
        while let range = rest.range(of: option) {
            let before = range.lowerBound == text.startIndex ? " " : text[text.index(before: range.lowerBound)]
            let after = range.upperBound == text.endIndex ? " " : text[range.upperBound]
            let word: (Character) -> Bool = { $0.isLetter || $0.isNumber || $0 == "-" }
            if !word(before), !word(after) { return true }
            rest = text[range.upperBound...]
        }
        return false
    }

    /// README's WHEN table and the man page list the forms the parser's tests read, one row each.
    @Test func everyWhenFormIsARowOfTheReadmeTableAndAnEntryOfTheManualPage() throws {
        let manual = CommandManual.page(commands: Datebook.commands.map { $0.spec }, version: "test")
        for (form, meaning) in WhenForms.table {
            #expect(Self.readme.contains("| `\(form)` | \(meaning) |"), "README's WHEN table has no row for '\(form)'")
            #expect(manual.contains(Roff.bold(form)), "the manual page has no entry for '\(form)'")
        }
    }

    @Test func everyCommandHasARowInTheReadmeTable() {
        for command in Datebook.commands {
            #expect(!Self.rows(of: command.spec).isEmpty, "README has no row for 'datebook \(command.spec.name)'")
        }
    }

    @Test func everyOptionOfEveryCommandIsInItsReadmeRow() {
        let add = Self.rows(of: AddCommand.spec).joined(separator: "\n")
        for command in Datebook.commands {
            var text = Self.rows(of: command.spec).joined(separator: "\n")
            if text.contains("[options of add]") { text += "\n" + add }
            for option in command.spec.options {
                #expect(Self.mentions(text, option.name), "README's row for 'datebook \(command.spec.name)' does not mention \(option.name)")
                if let short = option.short {
                    #expect(Self.mentions(text, "-\(short)"), "README's row for 'datebook \(command.spec.name)' does not mention -\(short)")
                }
            }
        }
    }

    @Test func everyGlobalOptionIsInTheReadme() throws {
        let start = try #require(Self.readme.range(of: "**Global options**"))
        let paragraph = Self.readme[start.lowerBound...].components(separatedBy: "\n\n").first ?? ""
        for option in GlobalOptions.specs where option.name != "--help" {
            #expect(Self.mentions(paragraph, option.name), "README's global options do not mention \(option.name)")
        }
        #expect(Self.mentions(paragraph, "--version"))
    }

    @Test func theOptionCheckFindsWholeWordsOnly() {
        #expect(Self.mentions("[--event-color NAME]", "--event-color"))
        #expect(!Self.mentions("[--event-color NAME]", "--color"))
        #expect(!Self.mentions("`--days-ahead`", "--days"))
        #expect(Self.mentions("`--days`", "--days"))
    }
}
