import Foundation
import Testing

/// Golden files of one test target: `Snapshots/` beside the file that creates this value.
public struct GoldenFiles: Sendable {
    public let directory: URL

    public init(beside filePath: StaticString = #filePath) {
        directory = URL(fileURLWithPath: "\(filePath)").deletingLastPathComponent().appendingPathComponent("Snapshots")
    }

    /// Compares `text` with `Snapshots/name`; `DATEBOOK_UPDATE_SNAPSHOTS=1` rewrites the file instead.
    public func expect(_ text: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let url = directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["DATEBOOK_UPDATE_SNAPSHOTS"] == "1" {
            try? Data(text.utf8).write(to: url)
            return
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            Issue.record("missing snapshot \(name); run with DATEBOOK_UPDATE_SNAPSHOTS=1", sourceLocation: sourceLocation)
            return
        }
        #expect(text == expected, "snapshot \(name) differs", sourceLocation: sourceLocation)
    }
}
