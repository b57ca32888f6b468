import Foundation

/// The data a Mustache template renders: a JSON-like tree.
///
/// Integers and decimals are separate cases so that counts render as `3`, not `3.0`;
/// a `.double` that holds a whole number renders without the fraction too.
public enum MustacheValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([MustacheValue])
    case object([String: MustacheValue])

    /// Converts the output of `JSONSerialization.jsonObject(with:)` (or any tree of
    /// `String`, numbers, `Bool`, arrays, `[String: Any]` and `NSNull`).
    ///
    /// Values of other types become `.null`, which renders as nothing.
    public init(json: Any) {
        switch json {
        case let value as MustacheValue:
            self = value
        case let string as String:
            self = .string(string)
        case let number as NSNumber:
            self = Self.fromNumber(number)
        case let array as [Any]:
            self = .array(array.map { MustacheValue(json: $0) })
        case let object as [String: Any]:
            self = .object(object.mapValues { MustacheValue(json: $0) })
        default:
            self = .null
        }
    }

    /// On Linux `JSONSerialization` returns booleans as `NSNumber`; the ObjC type code
    /// (`c` or `B`) is the only reliable way to tell them from integers.
    private static func fromNumber(_ number: NSNumber) -> MustacheValue {
        let code = String(cString: number.objCType)
        switch code {
        case "c", "B":
            return .bool(number.boolValue)
        case "f", "d":
            return .double(number.doubleValue)
        default:
            return .int(number.intValue)
        }
    }

    /// Whether a section over this value renders (the spec's "truthy").
    ///
    /// Only `false`, `null` and the empty list are falsey; `0` and `""` are truthy.
    var isTruthy: Bool {
        switch self {
        case .null: return false
        case .bool(let flag): return flag
        case .array(let items): return !items.isEmpty
        default: return true
        }
    }

    /// The text an interpolation tag emits, before escaping.
    var renderedText: String {
        switch self {
        case .null, .array, .object: return ""
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double(let number): return Self.format(number)
        case .string(let text): return text
        }
    }

    private static func format(_ number: Double) -> String {
        if number.isFinite, number == number.rounded(), abs(number) < 1e15 {
            return String(Int(number))
        }
        return String(number)
    }
}

extension MustacheValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension MustacheValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension MustacheValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension MustacheValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension MustacheValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension MustacheValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: MustacheValue...) { self = .array(elements) }
}

extension MustacheValue: ExpressibleByDictionaryLiteral {
    /// Later duplicates of a key win, as in a JSON object.
    public init(dictionaryLiteral elements: (String, MustacheValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
