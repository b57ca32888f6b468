import DatebookRender
import Foundation

/// The Mustache parser and renderer: the input is a template, also reachable as the partial
/// `self` (so recursion is fuzzed too), rendered against a small nested context.
enum MustacheFuzz {
    static let context: MustacheValue = [
        "title": "Dentist <b>&</b>", "count": 3, "done": false, "ratio": 0.5, "none": nil,
        "events": [["title": "A", "tasks": [["text": "x"], ["text": "y"]]], ["title": "B", "tasks": []]],
        "period": ["name": "Next 7 Days", "events": [["title": "C"]]],
    ]

    static func render(_ bytes: [UInt8]) {
        guard let template = try? MustacheTemplate(source: String(decoding: bytes, as: UTF8.self), name: "fuzz") else { return }
        let options = MustacheRenderOptions(missingPartial: .empty)
        guard let output = try? template.render(context, partials: ["self": template, "fuzz": template], options: options)
        else { return }
        FuzzSink.keep(output.utf8.count)
    }
}
