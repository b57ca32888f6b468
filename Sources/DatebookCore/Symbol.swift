/// The planner's SF-Symbol-style event symbols, each shown as an emoji in text output.
public enum Symbol: String, Sendable, Hashable, CaseIterable {
    case house = "house.fill"
    case ticket = "ticket.fill"
    case gamecontroller = "gamecontroller.fill"
    case theatermasks = "theatermasks.fill"
    case ladybug = "ladybug.fill"
    case booksVertical = "books.vertical.fill"
    case moonZzz = "moon.zzz.fill"
    case umbrella = "umbrella.fill"
    case paintbrushPointed = "paintbrush.pointed.fill"
    case leaf = "leaf.fill"
    case globeAmericas = "globe.americas.fill"
    case clock = "clock.fill"
    case building2 = "building.2.fill"
    case gift = "gift.fill"
    case graduationcap = "graduationcap.fill"
    case heartRectangle = "heart.rectangle.fill"
    case phoneBubbleLeft = "phone.bubble.left.fill"
    case cloudRain = "cloud.rain.fill"
    case buildingColumns = "building.columns.fill"
    case micCircle = "mic.circle.fill"
    case comb = "comb.fill"
    case person3 = "person.3.fill"
    case bell = "bell.fill"
    case hammer = "hammer.fill"
    case star = "star.fill"
    case crown = "crown.fill"
    case briefcase = "briefcase.fill"
    case speakerWave3 = "speaker.wave.3.fill"
    case tshirt = "tshirt.fill"
    case tag = "tag.fill"
    case airplane = "airplane"
    case pawprint = "pawprint.fill"
    case suitcase = "case.fill"
    case creditcard = "creditcard.fill"
    case infinityCircle = "infinity.circle.fill"
    case dice = "dice.fill"
    case heart = "heart.fill"
    case camera = "camera.fill"
    case bicycle = "bicycle"
    case radio = "radio.fill"
    case car = "car.fill"
    case flag = "flag.fill"
    case map = "map.fill"
    case figureWave = "figure.wave"
    case mappinAndEllipse = "mappin.and.ellipse"
    case facemask = "facemask.fill"
    case eyeglasses = "eyeglasses"
    case tram = "tram.fill"
    case book = "book.fill"

    /// The emoji that stands for this symbol in text, Markdown and chat output.
    public var emoji: String {
        switch self {
        case .house: "🏠"
        case .ticket: "🎟️"
        case .gamecontroller: "🎮"
        case .theatermasks: "🎭"
        case .ladybug: "🐞"
        case .booksVertical: "📚"
        case .moonZzz: "💤"
        case .umbrella: "☂️"
        case .paintbrushPointed: "🖌️"
        case .leaf: "🍃"
        case .globeAmericas: "🌎"
        case .clock: "🕒"
        case .building2: "🏢"
        case .gift: "🎁"
        case .graduationcap: "🎓"
        case .heartRectangle: "💌"
        case .phoneBubbleLeft: "📞"
        case .cloudRain: "🌧️"
        case .buildingColumns: "🏛️"
        case .micCircle: "🎤"
        case .comb: "💈"
        case .person3: "👥"
        case .bell: "🔔"
        case .hammer: "🔨"
        case .star: "⭐"
        case .crown: "👑"
        case .briefcase: "💼"
        case .speakerWave3: "🔊"
        case .tshirt: "👕"
        case .tag: "🏷️"
        case .airplane: "✈️"
        case .pawprint: "🐾"
        case .suitcase: "🧳"
        case .creditcard: "💳"
        case .infinityCircle: "♾️"
        case .dice: "🎲"
        case .heart: "❤️"
        case .camera: "📷"
        case .bicycle: "🚲"
        case .radio: "📻"
        case .car: "🚗"
        case .flag: "🚩"
        case .map: "🗺️"
        case .figureWave: "👋"
        case .mappinAndEllipse: "📍"
        case .facemask: "😷"
        case .eyeglasses: "👓"
        case .tram: "🚋"
        case .book: "📖"
        }
    }
}

/// The ten named event colours, each with a terminal colour and a hex value.
public enum EventColor: String, Sendable, Hashable, CaseIterable {
    case primary, gray, red, orange, yellow, green, mint, cyan, indigo, purple

    /// Hex values of the system colours the original planner used.
    public var hex: String {
        switch self {
        case .primary: "#007AFF"
        case .gray: "#8E8E93"
        case .red: "#FF3B30"
        case .orange: "#FF9500"
        case .yellow: "#FFCC00"
        case .green: "#34C759"
        case .mint: "#00C7BE"
        case .cyan: "#32ADE6"
        case .indigo: "#5856D6"
        case .purple: "#AF52DE"
        }
    }

    /// The CSS3 colour name iCalendar's COLOR property (RFC 7986) carries: the colour's own
    /// name where CSS has it, else the nearest CSS colour (`primary` is dodgerblue, `mint`
    /// darkturquoise).
    public var cssName: String {
        switch self {
        case .primary: "dodgerblue"
        case .mint: "darkturquoise"
        default: rawValue
        }
    }

    /// The colour a CSS3 name from `cssName` (or the planner's own name) stands for, any case;
    /// nil for other colours.
    public init?(cssName: String) {
        let name = cssName.lowercased()
        guard let color = Self.allCases.first(where: { $0.cssName == name || $0.rawValue == name }) else { return nil }
        self = color
    }

    /// The SGR parameter of the nearest 256-colour terminal colour.
    public var ansi: String {
        switch self {
        case .primary: "38;5;33"
        case .gray: "38;5;245"
        case .red: "38;5;203"
        case .orange: "38;5;208"
        case .yellow: "38;5;220"
        case .green: "38;5;77"
        case .mint: "38;5;43"
        case .cyan: "38;5;74"
        case .indigo: "38;5;62"
        case .purple: "38;5;135"
        }
    }
}
