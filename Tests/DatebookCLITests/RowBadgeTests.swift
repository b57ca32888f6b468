@testable import DatebookCLI
import Foundation
import Testing

/// A listing row's badge: the count of open tasks, written digit by digit.
struct RowBadgeTests {
    @Test(arguments: [1, 9, 10, 12, 100])
    func badgeShowsTheOpenCount(open: Int) {
        let sandbox = Sandbox()
        let tasks = (0...open).flatMap { ["--task", "task \($0)"] }
        #expect(sandbox.run(["add", "Many", "--at", "2026-12-02 10:00"] + tasks).code == 0)
        let id = String(sandbox.run(["list"]).out.split(separator: "\n")[1].split(separator: " ")[0])
        #expect(sandbox.run(["task", "done", id, "1"]).code == 0)
        let row = sandbox.run(["list"]).out.split(separator: "\n")[1]
        #expect(row.hasSuffix("  \(open) left"), "\(row)")
    }
}
