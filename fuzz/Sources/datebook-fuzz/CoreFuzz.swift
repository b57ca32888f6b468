import DatebookCore
import DatebookScheduler
import Foundation

/// The planner JSON reader, the JSON5 config reader and the WHEN parser.
enum CoreFuzz {
    static let zone = TimeZone(identifier: "Europe/Berlin") ?? .current
    static let now = Date(timeIntervalSince1970: 1_796_284_800)  // 2026-12-03T08:00:00Z

    static func plannerJSON(_ bytes: [UInt8]) {
        guard let root = try? JSONParser.parse(bytes) else { return }
        var next = 0
        let defaults = PlannerDocument.Defaults(timeZone: zone.identifier, newID: { next += 1; return "id\(next)" },
                                                symbol: { .star }, color: { .primary })
        guard let events = try? PlannerDocument.decode(root, file: "fuzz.json", defaults: defaults, validation: EventValidation(ruleProblem: { _ in nil })) else { return }
        FuzzSink.keep(PlannerDocument.encode(events).utf8.count)
    }

    static func config(_ bytes: [UInt8]) {
        guard let config = try? Config.parse(bytes, file: "fuzz.json5", environment: ["HOME": "/nonexistent"]) else { return }
        FuzzSink.keep(config.channels.count + config.digests.count + config.feeds.count)
    }

    /// A followed link's token: the input as the token's text, and as the bytes a token decodes to
    /// (so the payload reader sees arbitrary lengths and texts before the signature is checked).
    static func actionLink(_ bytes: [UInt8]) {
        let key = Data(repeating: 0x42, count: 32)
        for token in [String(decoding: bytes, as: UTF8.self), Base64URL.encode(Data(bytes))] {
            do {
                FuzzSink.keep(try ActionLink.verify(token, key: key, now: now).eventID.utf8.count)
            } catch {
                FuzzSink.keep(error.description.utf8.count)
            }
        }
    }

    /// Also as an event's start is read (skipped times refused), in zones with an hour, a half hour
    /// and a whole day skipped (Apia, 30 December 2011).
    static func when(_ bytes: [UInt8]) {
        var calendar = Calendar(identifier: .gregorian)
        let zones = [zone, TimeZone(identifier: "Australia/Lord_Howe"), TimeZone(identifier: "Pacific/Apia")]
        calendar.timeZone = zones[bytes.count % zones.count] ?? zone
        var parser = WhenParser(now: now, calendar: calendar)
        for strict in [false, true] {
            parser.refusesSkippedTimes = strict
            do {
                FuzzSink.keep(try parser.parse(String(decoding: bytes, as: UTF8.self)).hashValue & 1)
            } catch {
                FuzzSink.keep(String(describing: error).utf8.count)
            }
        }
    }
}
