/// Decides what Tab offers for a command line, from the command specs (the same ones that drive
/// parsing and `--help`). Pure: the store and config lookups come in through `lookup`.
struct CompletionEngine {
    let commands: [CommandSpec]

    /// Where the word under the cursor stands: what it may be, and the global options seen so far.
    struct Place: Equatable {
        var values: CompletionValues
        var optionNames: [String]?
        var globals: [String: String] = [:]
    }

    /// `words` are the words after `datebook`; the last one is the word being completed (maybe "").
    func place(_ words: [String]) -> Place {
        var command: CommandSpec?
        var positionals: [String] = []
        var pending: OptionSpec?
        var onlyPositionals = false
        var globals: [String: String] = [:]
        for word in words.dropLast() {
            if let option = pending {
                if GlobalOptions.specs.contains(where: { $0.name == option.name }) { globals[option.name] = word }
                pending = nil
            } else if word == "--", !onlyPositionals {
                onlyPositionals = true
            } else if word.hasPrefix("-"), word.count > 1, !onlyPositionals {
                let option = options(of: command).first { $0.name == word || (word.count == 2 && $0.short == word.last) }
                if let option, option.takesValue { pending = option }
            } else if command != nil {
                positionals.append(word)
            } else {
                guard let found = spec(named: word) else { return Place(values: .none, optionNames: nil, globals: globals) }
                command = found
            }
        }
        let current = words.last ?? ""
        if let option = pending {
            return Place(values: CompletionValues.option(option.name, command: command?.name), optionNames: nil, globals: globals)
        }
        if current.hasPrefix("-"), !onlyPositionals {
            let names = options(of: command).map(\.name) + (command == nil ? ["--version"] : [])
            return Place(values: .none, optionNames: names, globals: globals)
        }
        guard let command else { return Place(values: .commands, optionNames: nil, globals: globals) }
        return Place(values: CompletionValues.positional(command.name, positionals.count, before: positionals), optionNames: nil, globals: globals)
    }

    /// The candidates for the last word, filtered by it; `lookup` answers the store and config kinds.
    func candidates(_ words: [String], lookup: (CompletionValues, String) -> [String]) -> [String] {
        let current = words.last ?? ""
        let place = place(words)
        let offered: [String]
        if let names = place.optionNames {
            offered = names
        } else {
            switch place.values {
            case .words(let words): offered = words
            case .commands: offered = commands.filter { !$0.hidden }.map(\.name) + ["help"]
            case .none, .files: offered = []
            default: return lookup(place.values, current)
            }
        }
        return offered.filter { $0.hasPrefix(current) }
    }

    private func options(of command: CommandSpec?) -> [OptionSpec] {
        (command?.options ?? []) + GlobalOptions.specs
    }

    private func spec(named name: String) -> CommandSpec? {
        if name == "help" { return Datebook.helpSpec }
        return commands.first { $0.name == name || $0.aliases.contains(name) }
    }
}
