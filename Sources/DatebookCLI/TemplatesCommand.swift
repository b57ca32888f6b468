import DatebookCore
import DatebookRender
import DatebookTemplates
import Foundation

/// `datebook templates [show NAME]`: the built-in templates and where a user's override goes.
enum TemplatesCommand: Command {
    static let spec = CommandSpec(
        name: "templates", summary: "list the digest templates, or print one with 'show NAME'", usage: "[show NAME]",
        positionals: 0...2,
        examples: ["datebook templates", "datebook templates show digest.md.mustache > ~/.config/datebook/templates/digest.md.mustache"],
        details: "A file with a built-in's name in $XDG_CONFIG_HOME/datebook/templates/ overrides it (partials\nand the HTML layout too). Templates are Mustache; templates/README.md documents their context."
    )

    static func overrideDirectory(_ context: Context) -> String {
        context.config.templates ?? XDGPaths.configHome(context.environment) + "/datebook/templates"
    }

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let directory = overrideDirectory(context)
        let renderer = try DigestRenderer(overrideDirectory: directory)
        switch arguments.positionals.first {
        case nil:
            var out = "Built-in templates (override one by saving a file of the same name in \(directory)/):\n"
            out += Columns.aligned(BuiltInTemplates.all.map { name, _ in
                let origin = renderer.origin(of: name) ?? "built-in"
                return (name, origin == "built-in" ? "built-in" : "overridden by " + origin)
            })
            out += "Print one with: datebook templates show NAME\n"
            context.out.write(out)
        case "show":
            guard arguments.positionals.count == 2 else { throw CLIError.usage("'templates show' needs a template name, e.g. digest.md.mustache") }
            // `digest.md` names `digest.md.mustache`, as the listing's names would suggest.
            let asked = arguments.positionals[1]
            let name = BuiltInTemplates.all.contains { $0.0 == asked + ".mustache" } ? asked + ".mustache" : asked
            context.out.write(try renderer.source(of: name))
        case let word?:
            throw CLIError.usage("unknown templates action '\(word)'" + Suggestion.hint(for: word, in: ["show"]) + "; expected 'show NAME'")
        }
        return ExitCode.ok
    }
}
