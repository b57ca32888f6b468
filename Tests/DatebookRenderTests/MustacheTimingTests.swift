import Foundation
import Testing
import DatebookRender

/// Renders a digest-shaped workload (500 events, 5 tasks each) and prints the time taken.
/// No timing assertion: the figure is for humans (`swift test -c release --filter Timing`).
@Suite("Mustache timing")
struct MustacheTimingTests {
    static let template = """
    # Digest for {{day}}
    {{#events}}
    ## {{title}} ({{start}}–{{end}})
    {{#location}}
    Where: {{location}}
    {{/location}}
    {{^location}}
    Where: anywhere
    {{/location}}
      {{>tasks}}
    {{/events}}
    {{^events}}
    Nothing today.
    {{/events}}

    """
    static let tasks = "{{#tasks}}\n- [{{#done}}x{{/done}}{{^done}} {{/done}}] {{name}} <{{owner.email}}> #{{n}}\n{{/tasks}}\n"

    static func context() -> MustacheValue {
        let events = (0..<500).map { event -> MustacheValue in
            let tasks = (0..<5).map { task -> MustacheValue in
                ["name": .string("Task \(task) of event \(event) & more"), "done": .bool(task % 2 == 0),
                 "n": .int(task), "owner": ["email": .string("owner\(task)@example.com")]]
            }
            return ["title": .string("Event <\(event)>"), "start": "09:00", "end": "10:00",
                    "location": event % 3 == 0 ? nil : .string("Room \(event)"), "tasks": .array(tasks)]
        }
        return ["day": "Monday", "events": .array(events)]
    }

    @Test func digestOfFiveHundredEventsRenders() throws {
        let library = try MustacheLibrary(templates: ["digest": Self.template, "tasks": Self.tasks])
        let context = Self.context()
        let clock = ContinuousClock()
        var output = ""
        var times: [Duration] = []
        for _ in 0..<20 {
            times.append(try clock.measure { output = try library.render(name: "digest", context: context) })
        }
        times.sort()
        print("mustache timing: 500 events x 5 tasks, \(output.utf8.count) bytes, best \(times[0]), median \(times[10])")
        #expect(output.components(separatedBy: "\n  - [").count - 1 == 2_500)
        #expect(output.contains("  - [x] Task 0 of event 499 &amp; more <owner0@example.com> #0\n"))
    }
}
