import DatebookCore

/// `datebook completions bash|zsh|fish`: the shell's completion script. Each script asks
/// `datebook __complete` on every Tab, which answers from the command specs, the config and the
/// store, so a script never goes stale when datebook changes.
struct CompletionsCommand: Command {
    static let shells = ["bash", "zsh", "fish"]

    static let spec = CommandSpec(
        name: "completions", summary: "print the Tab completion script for bash, zsh or fish",
        usage: "bash|zsh|fish", positionals: 1...1,
        examples: ["datebook completions bash > ~/.local/share/bash-completion/completions/datebook",
                   "datebook completions zsh > ~/.zfunc/_datebook",
                   "datebook completions fish > ~/.config/fish/completions/datebook.fish"],
        details: """
        The scripts complete commands, options, option values (periods, formats, symbols, colours,
        locales, time zones), channel names for --channel, feed names, and event titles and short
        ids for EVENT. make install puts them where each shell looks for them.
        """
    )

    static func run(_ arguments: ParsedArguments, _ context: Context) throws -> Int32 {
        let shell = arguments.positionals[0]
        guard let script = script(for: shell) else {
            throw UsageError(message: "unknown shell '\(shell)'" + Suggestion.hint(for: shell, in: shells)
                             + "; expected bash, zsh or fish", command: "completions")
        }
        context.out.write(script)
        return ExitCode.ok
    }

    static func script(for shell: String) -> String? {
        switch shell {
        case "bash": bash
        case "zsh": zsh
        case "fish": fish
        default: nil
        }
    }

    static let bash = #"""
    # bash completion for datebook (from 'datebook completions bash')
    _datebook() {
        local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n' word
        local -a reply
        reply=($(command datebook __complete -- "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
        COMPREPLY=()
        if [[ ${reply[0]} == files ]]; then
            COMPREPLY=($(compgen -f -- "$cur"))
            return 0
        fi
        for word in "${reply[@]:1}"; do
            COMPREPLY+=("$(printf '%q' "$word")")
        done
    }
    complete -F _datebook datebook

    """#

    static let zsh = #"""
    #compdef datebook
    # zsh completion for datebook (from 'datebook completions zsh')
    _datebook() {
        local -a reply
        reply=("${(@f)$(command datebook __complete -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
        if [[ ${reply[1]} == files ]]; then
            _files
        elif (( ${#reply} > 1 )); then
            compadd -- "${(@)reply[2,-1]}"
        fi
    }
    if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
        _datebook "$@"
    else
        compdef _datebook datebook
    fi

    """#

    static let fish = #"""
    # fish completion for datebook (from 'datebook completions fish')
    function __datebook_complete
        set -l words (commandline -opc) (commandline -ct)
        set -l reply (command datebook __complete -- $words[2..-1] 2>/dev/null)
        if test "$reply[1]" = files
            __fish_complete_path (commandline -ct)
        else
            printf '%s\n' $reply[2..-1]
        end
    end
    complete -c datebook -f -a '(__datebook_complete)'

    """#
}
