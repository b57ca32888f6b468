import DatebookCore
import DatebookRender
import Foundation
import Testing

/// Every text colour of the HTML digest meets WCAG AA (4.5:1) against the background it is shown
/// on, in light mail clients (the inline styles) and in dark ones (the `prefers-color-scheme:
/// dark` rules of the layout's style block, which every inline text colour has a class for).
struct DigestContrastTests {
    /// WCAG 2 relative luminance of `#RRGGBB`.
    static func luminance(_ hex: String) -> Double? {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        guard digits.count == 6, let value = Int(digits, radix: 16) else { return nil }
        func channel(_ shift: Int) -> Double {
            let c = Double((value >> shift) & 0xFF) / 255
            return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(16) + 0.7152 * channel(8) + 0.0722 * channel(0)
    }

    static func contrast(_ a: String, _ b: String) -> Double {
        guard let x = luminance(a), let y = luminance(b) else { return 0 }
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    /// The value of `property` (`color`, `background`) in a CSS declaration list.
    static func value(_ property: String, in css: String) -> String? {
        let pattern = "(?:^|[;{\\s])" + property + "\\s*:\\s*(#[0-9A-Fa-f]{6})"
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: css, range: NSRange(css.startIndex..., in: css)),
              let range = Range(match.range(at: 1), in: css) else { return nil }
        return String(css[range]).lowercased()
    }

    static func matches(_ pattern: String, in text: String) -> [[String]] {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators]) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            (0..<match.numberOfRanges).map { Range(match.range(at: $0), in: text).map { String(text[$0]) } ?? "" }
        }
    }

    /// The dark-scheme rules: class name → declarations.
    static func darkRules(_ html: String) -> [String: String] {
        guard let media = html.range(of: "@media (prefers-color-scheme: dark)") else { return [:] }
        let rest = String(html[media.upperBound...])
        var rules: [String: String] = [:]
        for match in matches("\\.([a-z][a-z0-9-]*)\\s*\\{([^}]*)\\}", in: rest) { rules[match[1]] = match[2] }
        return rules
    }

    @Test(arguments: ["en_US", "ja_JP"])
    func everyTextColourIsReadableInLightAndDarkClients(locale: String) throws {
        // Yellow and mint are the colours that failed on white; a done event shows the ✓ colour.
        var yellow = DigestFixtures.event("Yellow event", hour: 19)
        yellow.color = .yellow
        var mint = DigestFixtures.event("Mint event", hour: 20)
        mint.color = .mint
        var done = DigestFixtures.event("Done event", hour: 21)
        done.tasks[0].status = .done
        var late = DigestFixtures.event("Late event", hour: 6)
        late.start = .instant(DigestFixtures.now.addingTimeInterval(-86_400))
        let html = try DigestFixtures.render(.html, locale: locale, extra: [yellow, mint, done, late])
        #expect(html.contains("#FFCC00") && html.contains("#00C7BE"), "the event colours stay (bar)")
        let dark = Self.darkRules(html)
        let card = try #require(dark["db-card"])
        let darkCardText = try #require(Self.value("color", in: card))
        let darkCard = try #require(Self.value("background", in: card))
        #expect(Self.contrast("#1c1c1e", "#ffffff") >= 4.5)
        #expect(Self.contrast(darkCardText, darkCard) >= 4.5)

        var checked = 0
        for tag in Self.matches("<[a-z0-9]+\\b([^>]*)>", in: html) {
            let attributes = tag[1]
            let style = Self.matches("style=\"([^\"]*)\"", in: attributes).first?[1] ?? ""
            guard let light = Self.value("color", in: style) else { continue }
            let lightBackground = Self.value("background", in: style) ?? "#ffffff"
            #expect(Self.contrast(light, lightBackground) >= 4.5, "light: \(light) on \(lightBackground) in \(tag[0])")
            let classes = (Self.matches("class=\"([^\"]*)\"", in: attributes).first?[1] ?? "").split(separator: " ")
            let rule = classes.compactMap { dark[String($0)] }.first { Self.value("color", in: $0) != nil }
            let darkText = rule.flatMap { Self.value("color", in: $0) }
            #expect(darkText != nil, "no dark-scheme colour for \(tag[0])")
            let darkBackground = rule.flatMap { Self.value("background", in: $0) } ?? darkCard
            if let darkText {
                #expect(Self.contrast(darkText, darkBackground) >= 4.5, "dark: \(darkText) on \(darkBackground) in \(tag[0])")
            }
            checked += 1
        }
        #expect(checked >= 10)
    }

    @Test func contrastMatchesWCAGExamples() {
        #expect(abs(Self.contrast("#000000", "#ffffff") - 21) < 0.01)
        #expect(Self.contrast("#FFCC00", "#ffffff") < 4.5)
        #expect(Self.contrast("#00C7BE", "#ffffff") < 4.5)
        #expect(abs(Self.contrast("#767676", "#ffffff") - 4.54) < 0.01)
    }
}
