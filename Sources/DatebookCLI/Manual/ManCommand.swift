/// `datebook man 1|5`: prints datebook(1) or datebook-config(5) as roff; `make install` writes them.
struct ManCommand: Command {
    static let spec = CommandSpec(
        name: "man", summary: "(internal) print the manual page datebook(1) or datebook-config(5) as roff",
        usage: "1|5", positionals: 1...1,
        examples: ["datebook man 1 | man -l -", "datebook man 5 > datebook-config.5"],
        details: "make install runs it to generate the installed pages from the binary itself.",
        hidden: true
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        switch arguments.positionals[0] {
        case "1": context.out.write(CommandManual.page(commands: Datebook.commands.map { $0.spec }, version: Datebook.version))
        case "5": context.out.write(ConfigManual.page(version: Datebook.version))
        case let section:
            throw UsageError(message: "no manual section '\(section)': expected 1 (datebook) or 5 (datebook-config)", command: "man")
        }
        return ExitCode.ok
    }
}
