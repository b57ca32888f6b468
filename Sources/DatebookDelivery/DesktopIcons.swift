import Foundation

/// The icon of an alert's notification: a name from the freedesktop Icon Naming Specification that
/// fits the event's symbol, when an installed icon theme has it; else `appointment-soon`.
///
/// Themes are looked up under `<data dir>/icons/<theme>/<size>/<context>/<name>.svg|png` for each
/// data directory (`$XDG_DATA_DIRS`, default `/usr/local/share:/usr/share`), once per notification
/// (a few milliseconds for a full Adwaita theme).
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
        let installed = installedNames(dataDirectories)
        return names.first(where: installed.contains) ?? fallback
    }

    /// The icon names (file names without extension) of every theme under `dataDirectories`,
    /// limited to the candidates (a theme holds thousands of icons).
    static func installedNames(_ dataDirectories: [String]) -> Set<String> {
        let wanted = Set(candidates.values.joined())
        var found: Set<String> = []
        let files = FileManager.default
        for directory in dataDirectories {
            let icons = directory + "/icons"
            for theme in (try? files.contentsOfDirectory(atPath: icons)) ?? [] {
                for size in (try? files.contentsOfDirectory(atPath: icons + "/" + theme)) ?? [] {
                    let sizePath = icons + "/" + theme + "/" + size
                    for context in (try? files.contentsOfDirectory(atPath: sizePath)) ?? [] {
                        for file in (try? files.contentsOfDirectory(atPath: sizePath + "/" + context)) ?? [] {
                            guard file.hasSuffix(".svg") || file.hasSuffix(".png") else { continue }
                            let name = String(file.dropLast(4))
                            if wanted.contains(name) { found.insert(name) }
                        }
                    }
                }
            }
        }
        return found
    }

    /// `$XDG_DATA_DIRS` as the Base Directory Specification reads it.
    public static func dataDirectories(_ environment: [String: String]) -> [String] {
        let value = environment["XDG_DATA_DIRS"] ?? ""
        let directories = value.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return directories.isEmpty ? ["/usr/local/share", "/usr/share"] : directories
    }
}
