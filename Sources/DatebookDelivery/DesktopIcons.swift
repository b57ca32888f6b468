import Foundation

/// The icon of an alert's notification: a name from the freedesktop Icon Naming Specification that
/// fits the event's symbol, when an installed icon theme has it; else `appointment-soon`.
///
/// Themes are looked up under `<data dir>/icons/<theme>/<size>/<context>/<name>.svg|png` for each
/// data directory (`$XDG_DATA_DIRS`, default `/usr/local/share:/usr/share`), once per notification,
/// by looking for the event's few candidate files in each theme's folders.
public enum DesktopIcons {
    /// Icon names by the event symbol's emoji, best first (Icon Naming Specification names only).
    static let candidates: [String: [String]] = [
        "🏠": ["user-home", "go-home"],
        "🎮": ["input-gaming", "applications-games"],
        "🎲": ["applications-games"],
        "📚": ["accessories-dictionary"],
        "📖": ["accessories-dictionary"],
        "🌎": ["applications-internet"],
        "🕒": ["appointment-soon"],
        "🔔": ["appointment-soon"],
        "🏢": ["applications-office"],
        "💼": ["applications-office"],
        "🎓": ["applications-science"],
        "💌": ["mail-unread", "mail-message-new"],
        "📞": ["phone", "call-start"],
        "🌧️": ["weather-showers"],
        "☂️": ["weather-showers"],
        "🎤": ["audio-input-microphone"],
        "🔊": ["audio-volume-high", "audio-speakers"],
        "🔨": ["applications-engineering"],
        "⭐": ["starred", "emblem-favorite"],
        "❤️": ["emblem-favorite"],
        "📷": ["camera-photo"],
        "🚩": ["emblem-important"],
        "🖌️": ["applications-graphics"],
        "👥": ["system-users"],
        "🗺️": ["applications-internet"],
        "📍": ["mark-location"],
        "💳": ["payment-card"],
        "😷": ["applications-science"],
    ]

    static let fallback = "appointment-soon"

    /// The first candidate for `emoji` that a theme under `dataDirectories` has, else the fallback.
    static func icon(forSymbol emoji: String, dataDirectories: [String]) -> String {
        guard let names = candidates[emoji], !dataDirectories.isEmpty else { return fallback }
        let folders = iconFolders(dataDirectories)
        return names.first { name in folders.contains { has(name, in: $0) } } ?? fallback
    }

    /// Every `<data dir>/icons/<theme>/<size>/<context>` folder: only folders are listed, never
    /// the thousands of icons a theme holds.
    static func iconFolders(_ dataDirectories: [String]) -> [String] {
        func children(_ path: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).map { path + "/" + $0 }
        }
        return dataDirectories.flatMap { children($0 + "/icons") }.flatMap(children).flatMap(children)
    }

    static func has(_ name: String, in folder: String) -> Bool {
        FileManager.default.fileExists(atPath: folder + "/" + name + ".svg")
            || FileManager.default.fileExists(atPath: folder + "/" + name + ".png")
    }

    /// `$XDG_DATA_DIRS` as the Base Directory Specification reads it.
    public static func dataDirectories(_ environment: [String: String]) -> [String] {
        let value = environment["XDG_DATA_DIRS"] ?? ""
        let directories = value.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return directories.isEmpty ? ["/usr/local/share", "/usr/share"] : directories
    }
}
