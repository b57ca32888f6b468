import DatebookCore

/// datebook(1): one page, with a section per command group (as systemctl(1) does), generated from
/// the command specs that drive `--help`, so a command or option cannot be missing from it.
enum CommandManual {
    /// The command groups, in page order. Every command belongs to exactly one (a test checks).
    static let groups: [(title: String, commands: [String])] = [
        ("PLANNER COMMANDS", ["add", "list", "show", "edit", "rm", "task", "tasks", "done", "snooze", "cal", "demo"]),
        ("IMPORT, EXPORT, FEED AND CALDAV COMMANDS", ["import", "export", "feed", "caldav", "store"]),
        ("DIGEST AND CHANNEL COMMANDS", ["digest", "templates", "send", "channels", "config"]),
        ("SCHEDULER COMMANDS", ["tick", "run", "status", "preview", "doctor"]),
        ("SERVER COMMANDS", ["serve"]),
        ("SHELL COMMANDS", ["completions"]),
        ("INTERNAL COMMANDS", ["await-notification", "man", "__complete"]),
    ]

    static func page(commands: [CommandSpec], version: String) -> String {
        var out = Roff.header("DATEBOOK", "1", "User Commands", version: version)
        out += ".SH NAME\ndatebook \\- a planner of events with checklists that tells you what is coming\n"
        out += ".SH SYNOPSIS\n.B datebook\n[\\fIglobal options\\fR] \\fICOMMAND\\fR [\\fIarguments\\fR]\n"
        out += ".SH DESCRIPTION\n" + Roff.paragraphs("""
        datebook keeps a planner of events, each with a checklist of tasks, in a local SQLite store and \
        shows what is coming, grouped into Next 7 Days, Next 30 Days, Future and Past. It sends digests \
        and alerts to chat webhooks, email, files and desktop notifications, from cron or a systemd timer \
        (datebook tick) or as a daemon (datebook run).

        Every command takes --help; 'datebook help COMMAND' is the same. Commands are grouped below by \
        what they work on. The configuration file is described in datebook-config(5).
        """)
        out += ".SH GLOBAL OPTIONS\n"
        for option in GlobalOptions.specs { out += entry(option) }
        out += Roff.tagged(Roff.bold("--version"), "print the version and exit")
        for group in groups {
            let specs = inGroupOrder(commands).filter { group.commands.contains($0.name) }
            guard !specs.isEmpty else { continue }
            out += ".SH " + group.title + "\n"
            for spec in specs { out += section(spec) }
        }
        out += ".SH WHEN\n" + Roff.paragraphs(whenIntro)
        for (form, meaning) in WhenForms.table { out += Roff.tagged(Roff.bold(form), meaning) }
        out += Roff.paragraphs(whenText)
        out += ".SH EVENT\n" + Roff.paragraphs(eventText)
        out += ".SH EXIT STATUS\n"
        for (code, meaning) in exitCodes { out += Roff.tagged(Roff.bold(String(code)), meaning) }
        out += ".SH ENVIRONMENT\n"
        for (name, meaning) in environment { out += Roff.tagged(Roff.bold(name), meaning) }
        out += ".SH FILES\n"
        for (path, meaning) in files { out += Roff.tagged(Roff.italic(path), meaning) }
        out += ".SH EXAMPLES\n" + Roff.example(inGroupOrder(commands).compactMap(\.examples.first))
        out += ".SH SEE ALSO\n.BR datebook\\-config (5),\n.BR crontab (5),\n.BR systemd.timer (5)\n"
        return out
    }

    /// The commands in page order; one not in any group is left out (a test fails on it).
    static func inGroupOrder(_ commands: [CommandSpec]) -> [CommandSpec] {
        groups.flatMap(\.commands).compactMap { name in commands.first { $0.name == name } }
    }

    private static func section(_ spec: CommandSpec) -> String {
        var out = ".SS " + Roff.escape("datebook " + spec.name) + "\n"
        out += ".B datebook " + Roff.escape(spec.name) + "\n" + Roff.escape(spec.usage) + "\n"
        out += ".PP\n" + Roff.escape(spec.summary) + (spec.aliases.isEmpty ? "" : " (also: " + Roff.escape(spec.aliases.joined(separator: ", ")) + ")") + ".\n"
        if !spec.details.isEmpty { out += Roff.paragraphs(spec.details) }
        if !spec.options.isEmpty {
            out += ".PP\nOptions:\n.RS 4\n"
            for option in spec.options { out += entry(option) }
            out += ".RE\n"
        }
        if !spec.examples.isEmpty { out += ".PP\nExamples:\n" + Roff.example(spec.examples) }
        return out
    }

    private static func entry(_ option: OptionSpec) -> String {
        var tag = option.short.map { Roff.bold("-" + String($0)) + ", " } ?? ""
        tag += Roff.bold(option.name)
        if case .value(let valueName) = option.kind { tag += " " + Roff.italic(valueName) }
        if option.repeatable { tag += " ..." }
        return Roff.tagged(tag, option.help)
    }

    static let whenIntro = """
    WHEN (for --at, --end, --until, --now) is one of these forms; month and weekday names are English \
    or those of the config's locale (Dezember, lundi), and a numeric date follows the locale's order:
    """

    static let whenText = """
    Times without an offset are in the zone of --tz, else the config's timeZone, else the system zone. \
    A WHEN that cannot be read names the word, quotes the input as typed and suggests the nearest form \
    that reads. add warns (and still adds) when the event's only occurrence has already begun.

    LEAD (an alert lead time) is 1w, 1d, 1h, 10m or 1h30m. Days and weeks are calendar days.
    """

    static let eventText = """
    EVENT is an id prefix of at least 4 characters ('datebook list' shows 8) or an exact title \
    (case-insensitive when there is no exact match). An ambiguous one lists the candidates.
    """

    static let exitCodes: [(Int32, String)] = [
        (ExitCode.ok, "success"),
        (1, "status found a failed delivery, or doctor a warning"),
        (ExitCode.usage, "usage: unknown command, option or value, unreadable WHEN, missing or ambiguous EVENT"),
        (ExitCode.dataError, "bad input data: malformed import or config, a store that cannot be used"),
        (ExitCode.noInput, "an input file does not exist (import FILE)"),
        (ExitCode.unavailable, "a channel is unavailable (missing secret, refused, 4xx)"),
        (ExitCode.software, "internal error"),
        (ExitCode.temporaryFailure, "temporary failure, try again (store locked, transient delivery failure)"),
    ]

    static let environment: [(String, String)] = [
        ("DATEBOOK_STORE", "the store path, as --store"),
        ("DATEBOOK_CONFIG", "the config file, as --config"),
        ("DATEBOOK_NOW", "pretend the time is this WHEN, as --now"),
        ("DATEBOOK_TZ", "the time zone, as --tz"),
        ("DATEBOOK_CA_FILE", "a PEM file of certificates to trust when fetching feeds and talking to CalDAV servers"),
        ("NO_COLOR", "when set, no colour (--color always still wins)"),
        ("XDG_CONFIG_HOME", "where the config and template overrides live (default ~/.config)"),
        ("XDG_DATA_HOME", "where the store lives (default ~/.local/share)"),
    ]

    static let files: [(String, String)] = [
        ("$XDG_CONFIG_HOME/datebook/config.json5", "the configuration, see datebook-config(5)"),
        ("$XDG_CONFIG_HOME/datebook/templates/", "template overrides ('datebook templates' lists the names)"),
        ("$XDG_DATA_HOME/datebook/datebook.sqlite3", "the store (SQLite, WAL), created on first use with mode 0600"),
        ("~/.config/systemd/user/datebook-tick.timer", "runs datebook tick every minute (installed under PREFIX/lib/systemd/user)"),
        ("~/.config/systemd/user/datebook.service", "the daemon, datebook run, as a systemd user service"),
    ]
}
