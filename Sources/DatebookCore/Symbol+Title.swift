/// The symbol a new event gets when `add` is given no `--symbol`: one chosen from the words of
/// its title (`Dentist` → facemask, `Flight to Lisbon` → airplane), else the neutral clock.
///
/// The desktop channel's icon follows from the symbol (`DesktopIcons`), so this one table is what
/// ties a title's words to both.
extension Symbol {
    /// The symbol for titles with no word in ``titleWords``.
    public static let neutral = Symbol.clock

    /// Lower-case English words (a plural `s` is dropped before looking up) → symbol.
    static let titleWords: [String: Symbol] = {
        let groups: [(Symbol, [String])] = [
            (.facemask, ["dentist", "doctor", "dr", "clinic", "hospital", "vaccine", "vaccination", "checkup", "physio"]),
            (.gift, ["birthday", "bday", "gift", "present", "christmas", "xmas", "anniversary"]),
            (.airplane, ["flight", "fly", "airport", "plane"]),
            (.tram, ["train", "tram", "bus", "metro", "subway"]),
            (.car, ["car", "drive", "garage", "mechanic", "tyre", "tire"]),
            (.bicycle, ["bike", "cycling", "ride"]),
            (.phoneBubbleLeft, ["call", "phone"]),
            (.person3, ["meeting", "standup", "sync", "team", "retro", "workshop"]),
            (.briefcase, ["work", "interview", "client"]),
            (.building2, ["office"]),
            (.graduationcap, ["school", "class", "lecture", "exam", "course", "graduation", "seminar"]),
            (.book, ["book", "reading", "library"]),
            (.gamecontroller, ["game", "gaming"]),
            (.dice, ["boardgame", "dice"]),
            (.micCircle, ["concert", "gig", "karaoke", "podcast"]),
            (.theatermasks, ["theater", "theatre", "opera", "play", "musical", "pagliacci"]),
            (.ticket, ["movie", "cinema", "film", "show", "ticket"]),
            (.suitcase, ["vacation", "holiday", "trip", "travel", "packing"]),
            (.leaf, ["camping", "hike", "hiking", "garden", "park", "walk"]),
            (.pawprint, ["dog", "cat", "vet", "pet"]),
            (.creditcard, ["pay", "bill", "rent", "invoice", "tax", "bank"]),
            (.comb, ["haircut", "hairdresser", "barber", "hair"]),
            (.heart, ["date", "dinner", "love", "valentine", "wedding"]),
            (.camera, ["photo", "photoshoot"]),
            (.moonZzz, ["sleep", "nap"]),
            (.house, ["home", "house", "move", "moving", "cleaning"]),
            (.hammer, ["repair", "fix", "diy", "plumber"]),
            (.eyeglasses, ["optician", "glasses", "eye"]),
            (.flag, ["deadline", "due"]),
            (.tag, ["shopping", "sale", "buy"]),
            (.tshirt, ["laundry", "clothes"]),
            (.buildingColumns, ["museum", "court", "embassy"]),
            (.bell, ["reminder", "remind"]),
        ]
        var table: [String: Symbol] = [:]
        for (symbol, words) in groups { for word in words { table[word] = symbol } }
        return table
    }()

    /// The first title word with a symbol, else ``neutral``.
    public static func suggested(forTitle title: String) -> Symbol {
        for word in title.lowercased().split(whereSeparator: { !$0.isLetter }) {
            let word = String(word)
            if let symbol = titleWords[word] { return symbol }
            if word.count > 3, word.hasSuffix("s"), let symbol = titleWords[String(word.dropLast())] { return symbol }
        }
        return neutral
    }
}
