import DatebookCore
import DatebookTestSupport
import Foundation
import Testing

@testable import DatebookRender

/// The HTML digest in a real browser (headless Chromium, as the serve tests run it): fluid up to
/// 600 px, so a phone's 375 px shows the whole card without scrolling sideways. Screenshots at
/// 375 and 600 px are kept in .build/test-artifacts/email/.
@Suite(.serialized) struct EmailLayoutBrowserTests {
    static let chromium = "/usr/bin/chromium"
    static let artifacts = repositoryRoot.appendingPathComponent(".build/test-artifacts/email")

    /// Runs Chromium headless on `arguments`, its profile in a folder of its own under the
    /// artifacts (never /tmp), removed after.
    static func browse(_ arguments: [String]) throws -> (status: Int32, out: String) {
        let profile = artifacts.appendingPathComponent("chromium-profile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                             "--user-data-dir=" + profile.path] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The digest at `width` px: in an iframe of that width (headless Chromium's own window is
    /// never narrower than 500 px), with a probe that writes the card's width, the page's
    /// scrolling width and the frame's inner width into the outer page's DOM.
    static func page(_ html: String, width: Int) -> String {
        let probe = html.replacingOccurrences(of: "</body>", with: """
            <script>parent.document.body.setAttribute("data-layout", [Math.round(document.querySelector(".db-card").getBoundingClientRect().width), document.documentElement.scrollWidth, window.innerWidth].join(" "))</script></body>
            """)
        return "<!DOCTYPE html><html><body style=\"margin:0\"><iframe style=\"width:\(width)px;height:1600px;border:0\" srcdoc=\""
            + HTMLText.escape(probe) + "\"></iframe></body></html>"
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: chromium), "chromium is missing: run scripts/setup.sh --test"),
          arguments: [(375, 343), (600, 568), (800, 600)])
    func theHTMLDigestIsFluidUpTo600Pixels(width: Int, card: Int) throws {
        let html = try DigestFixtures.render(.html, locale: "en_US")
        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
        let page = Self.artifacts.appendingPathComponent("digest-\(width).html")
        try Self.page(html, width: width).write(to: page, atomically: true, encoding: .utf8)
        let shot = Self.artifacts.appendingPathComponent("digest-\(width).png")
        try? FileManager.default.removeItem(at: shot)
        let window = "--window-size=\(max(width, 500)),1600"
        #expect(try Self.browse([window, "--screenshot=" + shot.path, page.absoluteString]).status == 0)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: shot.path)[.size] as? Int) ?? 0
        #expect(bytes > 10_000, "digest-\(width).png is \(bytes) bytes")
        let dom = try Self.browse([window, "--dump-dom", page.absoluteString]).out
        let layout = try #require(dom.range(of: #"data-layout="[0-9 ]+""#, options: .regularExpression).map { String(dom[$0]) }, "no probe in \(dom.prefix(300))")
        let numbers = layout.dropFirst("data-layout=\"".count).dropLast().split(separator: " ").compactMap { Int($0) }
        try #require(numbers.count == 3, "\(layout)")
        #expect(numbers[2] == width, "the frame is \(width) px wide: \(layout)")
        #expect(numbers[0] == card, "card width at \(width) px: \(layout)")
        #expect(numbers[1] <= width, "nothing wider than \(width) px: \(layout)")
    }
}
