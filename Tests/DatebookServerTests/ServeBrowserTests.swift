import DatebookTestSupport
import Foundation
import Testing

/// The agenda in a real browser: headless Chromium (Debian `chromium`, installed by setup.sh --test)
/// at phone and desktop widths. Screenshots are kept in .build/test-artifacts/serve/.
@Suite(.serialized) struct ServeBrowserTests {
    static let chromium = "/usr/bin/chromium"
    static let artifacts = repositoryRoot.appendingPathComponent(".build/test-artifacts/serve").path

    static func browse(_ arguments: [String]) throws -> (status: Int32, out: String) {
        let profile = NSTemporaryDirectory() + "datebook-chromium-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                             "--user-data-dir=" + profile] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func sandbox() throws -> ServeSandbox {
        let sandbox = try ServeSandbox()
        try #require(sandbox.run(["demo"]).status == 0)
        try #require(sandbox.run(["add", "<img src=x onerror=alert(1)>", "--at", "tomorrow 10:00", "--task", "<b>bold?</b>"]).status == 0)
        try #require(sandbox.run(["done", "Pagliacci"]).status == 0)
        try sandbox.start()
        return sandbox
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: chromium), "chromium is missing: run scripts/setup.sh --test"))
    func theAgendaRendersAtPhoneAndDesktopWidthsInLightAndDark() throws {
        let sandbox = try Self.sandbox()
        try FileManager.default.createDirectory(atPath: Self.artifacts, withIntermediateDirectories: true)
        let url = "http://127.0.0.1:\(sandbox.port)/"
        for (name, size, extra) in [("agenda-375", "375,1400", [String]()), ("agenda-1280", "1280,1000", []),
                                    ("agenda-375-dark", "375,1400", ["--force-dark-mode", "--blink-settings=preferredColorScheme=0"])] {
            let file = Self.artifacts + "/\(name).png"
            try? FileManager.default.removeItem(atPath: file)
            let run = try Self.browse(["--window-size=\(size)", "--screenshot=\(file)"] + extra + [url])
            #expect(run.status == 0)
            let bytes = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            #expect(bytes > 20_000, "\(name).png is \(bytes) bytes")
        }
        #expect(sandbox.logText.contains("GET /static/site.css 200"), "the browser loaded the style sheet")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: chromium), "chromium is missing: run scripts/setup.sh --test"))
    func theDOMHasThePeriodsBadgesLabelledControlsAndTitlesAsText() throws {
        let sandbox = try Self.sandbox()
        let dom = try Self.browse(["--window-size=375,1400", "--dump-dom", "http://127.0.0.1:\(sandbox.port)/"]).out
        try FileManager.default.createDirectory(atPath: Self.artifacts, withIntermediateDirectories: true)
        try dom.write(toFile: Self.artifacts + "/agenda.dom.html", atomically: true, encoding: .utf8)
        for text in ["Next 7 Days", "Next 30 Days", "Future", "2 left", "✓", "aria-label=\"Mark done: Bug spray\"", "aria-label=\"Mark not done: Get tickets\"", "role=\"checkbox\"",
                     "<button type=\"submit\"", "name=\"csrf\"", "&lt;img src=x onerror=alert(1)&gt;", "&lt;b&gt;bold?&lt;/b&gt;"] {
            #expect(dom.contains(text), "the DOM lacks \(text)")
        }
        #expect(!dom.contains("<img"), "the title became an element")
        #expect(!dom.contains("<b>bold"), "the task became markup")
        let buttons = dom.components(separatedBy: "<button").count - 1
        let labelled = dom.components(separatedBy: "aria-label=\"Mark ").count - 1
        #expect(buttons > 10 && buttons == labelled, "\(labelled) of \(buttons) checkboxes labelled")
    }
}

/// The style sheet's text colours against their backgrounds, in both schemes (WCAG AA: 4.5:1).
struct ServeContrastTests {
    static func luminance(_ hex: String) -> Double {
        let value = Int(hex.dropFirst(), radix: 16) ?? 0
        let bytes: [Int] = [(value >> 16) & 255, (value >> 8) & 255, value & 255]
        let channels: [Double] = bytes.map { byte in
            let c = Double(byte) / 255
            return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]
    }

    static func contrast(_ a: String, _ b: String) -> Double {
        let x = luminance(a), y = luminance(b)
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    /// `--name: #hex` pairs of the first `:root { … }` after `marker` in the style sheet.
    static func variables(after marker: String, in css: String) -> [String: String] {
        guard let start = css.range(of: marker), let open = css.range(of: ":root {", range: start.lowerBound..<css.endIndex),
              let close = css.range(of: "}", range: open.upperBound..<css.endIndex) else { return [:] }
        var result: [String: String] = [:]
        for declaration in css[open.upperBound..<close.lowerBound].split(separator: ";") {
            let parts = declaration.split(separator: ":").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            if parts.count == 2, parts[0].hasPrefix("--"), parts[1].hasPrefix("#") { result[parts[0]] = parts[1] }
        }
        return result
    }

    @Test(arguments: ["color-scheme: light dark;", "@media (prefers-color-scheme: dark)"])
    func everyTextColourMeetsAAOnEveryBackground(scheme: String) throws {
        let css = try String(contentsOf: repositoryRoot.appendingPathComponent("templates/web.css.mustache"), encoding: .utf8)
        let colours = Self.variables(after: scheme, in: css)
        #expect(colours.count >= 10, "\(colours)")
        for text in ["--text", "--muted", "--link", "--overdue", "--done", "--past", "--future"] {
            for background in ["--bg", "--card"] {
                guard let foreground = colours[text], let behind = colours[background] else {
                    Issue.record("\(scheme): \(text) or \(background) missing")
                    continue
                }
                let ratio = Self.contrast(foreground, behind)
                #expect(ratio >= 4.5, "\(scheme): \(text) \(foreground) on \(background) \(behind) is \(String(format: "%.2f", ratio)):1")
            }
        }
    }
}
