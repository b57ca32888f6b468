import DatebookCore
import DatebookInterchange
import DatebookServer
import DatebookStore

/// What Tab offers at one place of a command line.
enum CompletionValues: Sendable, Equatable {
    /// These words.
    case words([String])
    /// Titles and short ids from the store (EVENT arguments).
    case events
    /// The channel names in the config (`--channel`).
    case channels
    /// The feed names in the store.
    case feeds
    /// IANA time zone names.
    case zones
    /// Locale identifiers Foundation knows.
    case locales
    /// The built-in template names.
    case templates
    /// Command names (`help COMMAND`).
    case commands
    /// File names: the shell completes them itself.
    case files
    /// Free text: nothing to offer.
    case none

    /// The values of `option` for `command`, from the same lists the commands check their input against.
    static func option(_ option: String, command: String?) -> CompletionValues {
        switch option {
        case "--period": .words(AgendaJSON.periodNames)
        case "--format": command == "export" ? .words(["json", "ics"]) : .words(["text", "markdown", "html"])
        case "--symbol": .words(Symbol.allCases.map(\.rawValue))
        case "--event-color": .words(EventColor.allCases.map(\.rawValue))
        case "--color": .words(["auto", "always", "never"])
        case "--status": .words(TasksCommand.statusNames)
        case "--repeat": .words(["daily", "weekly", "monthly", "yearly"])
        case "--locale": .locales
        case "--tz": .zones
        case "--channel": .channels
        case "--listen": .words([ListenAddress.standard.description, "127.0.0.1:0", "[::1]:8650", "0.0.0.0:8650"])
        case "--store", "--config", "--output", "--template", "--ca-file": .files
        default: .none
        }
    }

    /// The values of the positional argument at `index` of `command`, after `before`.
    static func positional(_ command: String, _ index: Int, before: [String]) -> CompletionValues {
        switch (command, index) {
        case ("show", 0), ("edit", 0), ("rm", 0), ("done", 0), ("snooze", 0), ("tasks", 0): .events
        case ("task", 0): .words(TaskCommand.actions)
        case ("task", 1): .events
        case ("feed", 0): .words(FeedCommand.actions)
        case ("feed", 1): ["refresh", "rm"].contains(before[0]) ? .feeds : .none
        case ("feed", 2): before[0] == "add" ? .files : .none
        case ("caldav", 0): .words(CalDAVCommand.actions)
        case ("store", 0): .words(StoreCommand.actions)
        case ("store", 1), ("store", 2): .files
        case ("send", 0): .words(SendCommand.targets)
        case ("send", 1): before[0] == "alert" ? .events : .none
        case ("channels", 0): .words(["test"])
        case ("channels", 1): .channels
        case ("config", 0): .words(["init", "add-channel"])
        case ("config", 1): before[0] == "add-channel" ? .words(ConfigChannel.types) : .none
        case ("templates", 0): .words(["show"])
        case ("templates", 1): .templates
        case ("import", 0): .files
        case ("completions", 0): .words(CompletionsCommand.shells)
        case ("man", 0): .words(["1", "5"])
        case ("help", 0): .commands
        default: .none
        }
    }
}
