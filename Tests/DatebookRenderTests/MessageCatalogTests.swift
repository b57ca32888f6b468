import DatebookCore
import DatebookRender
import DatebookTemplates
import DatebookTestSupport
import Foundation
import Testing

struct MessageCatalogTests {
    /// A temporary templates folder with `locales/LANG.json` holding `text`.
    static func overrides(_ language: String, _ text: String) throws -> String {
        let folder = makeScratchFolder("catalog")  // removed when the test process ends
        try FileManager.default.createDirectory(atPath: folder + "/locales", withIntermediateDirectories: true)
        try text.write(toFile: folder + "/locales/\(language).json", atomically: true, encoding: .utf8)
        return folder
    }

    /// English, German and Japanese have every key; the others list what shows in English.
    @Test func missingKeysPerLanguage() throws {
        var missing: [String: [String]] = [:]
        for (language, _) in BuiltInCatalogs.all { missing[language] = try MessageCatalog.missingKeys(language: language) }
        #expect(missing["en"] == [])
        #expect(missing["de"] == [], "German lacks: \(missing["de"] ?? [])")
        #expect(missing["ja"] == [], "Japanese lacks: \(missing["ja"] ?? [])")
        #expect(missing["fr"]?.contains("allDay") == false)
        #expect(missing["fr"]?.contains("next7") == true)
    }

    @Test(arguments: [
        ("en_US", 1, false, "1 open task"), ("en_US", 2, false, "2 open tasks"), ("en_US", 1, true, "1+ open tasks"),
        ("de_DE", 1, false, "1 offene Aufgabe"), ("de_DE", 2, false, "2 offene Aufgaben"), ("de_DE", 0, false, "0 offene Aufgaben"),
        ("ja_JP", 1, false, "未完了のタスク 1 件"), ("ja_JP", 2, false, "未完了のタスク 2 件"),
    ])
    func pluralsFollowTheLanguage(locale: String, count: Int, capped: Bool, expected: String) throws {
        let words = try DigestLocale(identifier: locale, timeZone: .gmt).words
        #expect(words.count("openTasks", count, capped: capped) == expected)
    }

    /// Placeholders are filled in one pass: text that came in as a value is never searched again,
    /// and braces that name nothing stay as written.
    @Test func placeholdersAreFilledInOnePass() throws {
        let words = MessageCatalog.english
        #expect(words.text("alertTitle", ["lead": "1 hour", "title": "Standup"]) == "in 1 hour: Standup")
        #expect(words.text("alertTitle", ["lead": "{title}", "title": "{lead} {x} { {{title}}"]) == "in {title}: {lead} {x} { {{title}}")
        #expect(words.text("alertTitle", ["title": "Standup"]) == "in {lead}: Standup")
        #expect(words.text("alertTitle") == "in {lead}: {title}")
        #expect(words.count("hours", 1) == "1 hour")
        #expect(words.count("hours", 12, capped: true, ["count": "ignored"]) == "12+ hours")
        let german = try DigestLocale(identifier: "de_DE", timeZone: .gmt).words
        #expect(german.text("alertTitle", ["lead": "1 Stunde", "title": "Café {count}"]) == "in 1 Stunde: Café {count}")
    }

    @Test func aLanguageWithoutTheKeyFallsBackToEnglish() throws {
        let french = try DigestLocale(identifier: "fr_FR", timeZone: .gmt).words
        #expect(french.text("allDay") == "toute la journée")
        #expect(french.text("next7") == "Next 7 Days")
        let swedish = try DigestLocale(identifier: "sv_SE", timeZone: .gmt).words
        #expect(swedish.count("left", 3) == "3 left")
    }

    @Test func aUsersCatalogueReplacesMessagesOneByOne() throws {
        let folder = try Self.overrides("de", "{ \"left\": \"noch {count}\" }")
        let locale = try DigestLocale(identifier: "de_DE", timeZone: DigestFixtures.zone, catalogDirectory: folder)
        let context = DigestContext(DigestFixtures.input(), locale: locale)
        let text = try DigestRenderer(overrideDirectory: folder).render(context, format: .text)
        #expect(text.contains("noch 2"))
        #expect(text.contains("NÄCHSTE 7 TAGE · 11 OFFENE AUFGABEN"))
    }

    @Test(arguments: [
        ("{\n  \"left\": \"noch {count}\",\n  \"more\": \n}", ":4: key 'more': unexpected character '}' (column 1)"),
        ("{\n  \"left\": \"noch\"\n}", ":2: key 'left': missing placeholder {count}"),
        ("{\n  \"today\": \"Heute {date}\"\n}", ":2: key 'today': unknown placeholder {date} (it takes none)"),
        ("{\n\n  \"nxt7\": \"Bald\"\n}", ":3: key 'nxt7': unknown key (did you mean 'next7'?)"),
        ("{\n  \"openTasks\": { \"one\": \"eine\", \"other\": \"{count} offene\" }\n}", ":2: key 'openTasks': missing placeholder {count}"),
        ("{\n  \"openTasks\": { \"one\": \"{count} offene\" }\n}", ":2: key 'openTasks': a plural message needs \"other\""),
        ("[]", ":1: expected an object of messages"),
    ])
    func aBrokenCatalogueNamesFileLineAndKey(text: String, expected: String) throws {
        let folder = try Self.overrides("de", text)
        do {
            _ = try DigestLocale(identifier: "de_DE", timeZone: .gmt, catalogDirectory: folder)
            Issue.record("a broken catalogue must be refused")
        } catch let error as CatalogError {
            #expect(error.description.hasPrefix(folder + "/locales/de.json" + expected), "\(error)")
        }
    }

    @Test func theBuiltInCataloguesParse() throws {
        for (language, _) in BuiltInCatalogs.all {
            #expect(throws: Never.self) { try MessageCatalog.load(language: language, overrideDirectory: nil) }
        }
    }

    /// A user template written before the catalogues (English words in it, the old keys) still
    /// renders, with the words the context computes now in the reader's language.
    @Test func anOldStyleTemplateKeepsWorking() throws {
        let path = repositoryRoot.appendingPathComponent("Tests/DatebookRenderTests/Fixtures/old-style-digest.md.mustache").path
        let context = try DigestFixtures.context(locale: "de_DE")
        let text = try DigestRenderer(overrideDirectory: nil).render(context, format: .markdown, template: path)
        #expect(text.hasPrefix("# datebook digest · Montag, 30. November 2026\n\n4 Termine diese Woche, 11 offene Aufgaben\n"))
        #expect(text.contains("## Nächste 7 Tage · 11 offene Aufgaben"))
        #expect(text.contains("- 🎭 **Pagliacci** — Di. 1. Dez. 07:00 · 2 offen"))
    }

    @Test func templatesGetTheWordsThroughTheContext() throws {
        let context = try DigestFixtures.context(locale: "ja_JP")
        guard case .object(let root) = context.value, case .object(let words)? = root["words"] else {
            Issue.record("no words in the context")
            return
        }
        #expect(words["next7"] == .string("今後7日間"))
        #expect(words["left"] == nil, "a message with a placeholder is computed by the context, not given raw")
    }
}
