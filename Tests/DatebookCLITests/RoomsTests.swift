import DatebookTestSupport
import Foundation
import Testing

/// The rooms as README's layout draws them, checked on the sources: a payload or an iCalendar
/// call that drifts into the wrong room, or a new unchecked `Sendable`, fails here.
struct RoomsTests {
    static let sources = repositoryRoot.appendingPathComponent("Sources")

    /// Every Swift file under `Sources/<target>`, with its text.
    static func files(in target: String) -> [(name: String, text: String)] {
        let directory = sources.appendingPathComponent(target)
        let paths = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
        return paths.filter { $0.hasSuffix(".swift") }.sorted().compactMap { path in
            (try? String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)).map { (target + "/" + path, $0) }
        }
    }

    static let targets = ["DatebookCore", "DatebookICal", "DatebookStore", "DatebookRender", "DatebookDelivery",
                          "DatebookScheduler", "DatebookServer", "DatebookSync", "DatebookCLI"]

    @Test func theCLIReadsICalendarOnlyThroughTheStore() {
        let files = Self.files(in: "DatebookCLI")
        #expect(!files.isEmpty)
        for file in files {
            #expect(!file.text.contains("import DatebookICal"), "\(file.name) imports DatebookICal")
        }
    }

    @Test func perServicePayloadsAreRenderedNotSent() {
        let delivery = Self.files(in: "DatebookDelivery").map(\.name)
        #expect(!delivery.contains { $0.contains("Payload") }, "\(delivery)")
        #expect(Self.files(in: "DatebookRender").contains { $0.name.hasSuffix("Payloads/SlackPayload.swift") })
    }

    /// Only a C handle or a Foundation formatter may need it, and each says why on its line.
    @Test func uncheckedSendableOnlyWithAReason() {
        let lines = Self.targets.flatMap(Self.files(in:)).flatMap { file in
            file.text.split(separator: "\n").filter { $0.contains(": @unchecked Sendable") }.map { (file.name, String($0)) }
        }
        #expect(lines.count <= 4, "\(lines.map(\.0))")
        for (name, line) in lines {
            #expect(line.contains("//"), "\(name): \(line) gives no reason")
        }
    }

    /// The Server room answers HTTP: the CLI only starts it (no route, page or `WebResponse` of its own).
    @Test func theCLIHoldsNoHTTPHandlers() {
        for file in Self.files(in: "DatebookCLI") {
            for marker in ["routes.add(", "WebResponse", "WebRequest", "RouteParameters", "renderPage("] {
                #expect(!file.text.contains(marker), "\(file.name) holds \(marker): HTTP handlers belong in Sources/DatebookServer")
            }
        }
        #expect(Self.files(in: "DatebookServer").contains { $0.name.hasSuffix("Site/PlannerSite.swift") })
    }

    @Test func eachCommandHasItsOwnFile() {
        for file in Self.files(in: "DatebookCLI") {
            let commands = file.text.split(separator: "\n").filter { $0.hasPrefix("enum ") && $0.contains(": Command {") }
            #expect(commands.count <= 1, "\(file.name): \(commands)")
        }
    }
}
