// SPDX-License-Identifier: MIT OR Apache-2.0
/// A JSON value with keys in the order they were written, so output reads
/// the same every time. Written compactly, on one line.
public indirect enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object(JSONObject)
    /// JSON text written elsewhere, put in as it is: a userInfo value in
    /// its tagged form (`UserInfoJSON.encodeTagged`, HandoffModel).
    case encoded(String)

    public static func string(_ value: String?) -> JSON {
        value.map { .string($0) } ?? .null
    }

    public var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        // JSON has no infinity or NaN; userInfo reals are finite anyway.
        case .double(let d): out += d.isFinite ? Self.number(d) : "null"
        case .string(let s): Self.quote(s, into: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (i, (key, value)) in object.pairs.enumerated() {
                if i > 0 { out += "," }
                Self.quote(key, into: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        case .encoded(let text): out += text
        }
    }

    /// Integral reals keep a ".0" so a reader sees a real, not an integer.
    private static func number(_ d: Double) -> String {
        let text = "\(d)"
        return text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? text : text + ".0"
    }

    private static func quote(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

/// A JSON object: ordered pairs; writing a key again replaces its value.
public struct JSONObject: ExpressibleByDictionaryLiteral, Sendable, Equatable {
    public private(set) var keys: [String] = []
    private var values: [JSON] = []

    public var pairs: [(String, JSON)] { Array(zip(keys, values)) }

    public init() {}

    public init(dictionaryLiteral elements: (String, JSON)...) {
        for (key, value) in elements { self[key] = value }
    }

    public subscript(key: String) -> JSON? {
        get { keys.firstIndex(of: key).map { values[$0] } }
        set {
            if let i = keys.firstIndex(of: key) {
                if let newValue {
                    values[i] = newValue
                } else {
                    keys.remove(at: i)
                    values.remove(at: i)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }
}

extension JSON: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSON)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}

extension JSON: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}
