// SPDX-License-Identifier: MIT OR Apache-2.0
import CSystemd

/// Any D-Bus value read from a message whose types the reader does not fix
/// in advance (properties of another process: `a{sv}`, variants). What a
/// peer sends is input: strings are cut to `BusReadBounds.stringBytes`,
/// arrays and dictionaries keep at most `BusReadBounds.elements` entries
/// (the rest are read and dropped), and nesting deeper than
/// `BusReadBounds.depth` is skipped whole.
public indirect enum BusAnyValue: Equatable, Sendable {
    case string(String)
    case objectPath(String)
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case double(Double)
    case array([BusAnyValue])
    case dictionary([(key: BusAnyValue, value: BusAnyValue)])
    case structure([BusAnyValue])
    /// Too deep, a file descriptor, or a type this reader does not know.
    case skipped

    public static func == (a: BusAnyValue, b: BusAnyValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)), (.objectPath(let x), .objectPath(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.integer(let x), .integer(let y)): return x == y
        case (.unsigned(let x), .unsigned(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y
        case (.array(let x), .array(let y)), (.structure(let x), .structure(let y)): return x == y
        case (.dictionary(let x), .dictionary(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.skipped, .skipped): return true
        default: return false
        }
    }

    public var string: String? {
        switch self {
        case .string(let s), .objectPath(let s): s
        default: nil
        }
    }

    public var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// Any integer or double as a Double (MPRIS's Rate is `d`, Position `x`).
    public var number: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .unsigned(let u): Double(u)
        case .double(let d): d
        default: nil
        }
    }

    public var strings: [String] {
        switch self {
        case .array(let items): items.compactMap(\.string)
        case .string(let s): [s]
        default: []
        }
    }

    /// The value under a string key of a dictionary (`a{sv}`: the variant's content).
    public subscript(key: String) -> BusAnyValue? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries.last(where: { $0.key.string == key })?.value
    }
}

public enum BusReadBounds {
    public static let stringBytes = 4096
    public static let elements = 256
    public static let depth = 8
}

extension MessageReader {
    /// The sender's unique name of a signal or call ("" when the bus gave none).
    public var sender: String {
        sd_bus_message_get_sender(message).map { String(cString: $0) } ?? ""
    }

    /// The object path a signal was emitted from.
    public var path: String {
        sd_bus_message_get_path(message).map { String(cString: $0) } ?? ""
    }

    /// Reads the next complete value, whatever its type (bounded as above).
    /// Nil at the end of the message or the container.
    public func anyValue() throws(DBusError) -> BusAnyValue? {
        try anyValue(depth: 0)
    }

    /// `a{sv}` as a dictionary value (the common shape of properties).
    public func vardict() throws(DBusError) -> BusAnyValue {
        try anyValue() ?? .dictionary([])
    }

    private func anyValue(depth: Int) throws(DBusError) -> BusAnyValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>? = nil
        let r = sd_bus_message_peek_type(message, &type, &contents)
        try check(r, "peek type")
        if r == 0 { return nil }
        let code = UInt8(bitPattern: type)
        let inner = contents.map { String(cString: $0) } ?? ""
        switch code {
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            var p: UnsafePointer<CChar>? = nil
            try check(sd_bus_message_read_basic(message, type, &p), "read string")
            let text = Self.cut(p.map { String(cString: $0) } ?? "")
            return code == UInt8(ascii: "o") ? .objectPath(text) : .string(text)
        case UInt8(ascii: "b"):
            var v: Int32 = 0
            try check(sd_bus_message_read_basic(message, type, &v), "read bool")
            return .bool(v != 0)
        case UInt8(ascii: "y"):
            var v: UInt8 = 0
            try check(sd_bus_message_read_basic(message, type, &v), "read byte")
            return .unsigned(UInt64(v))
        case UInt8(ascii: "n"):
            var v: Int16 = 0
            try check(sd_bus_message_read_basic(message, type, &v), "read int16")
            return .integer(Int64(v))
        case UInt8(ascii: "q"):
            var v: UInt16 = 0
            try check(sd_bus_message_read_basic(message, type, &v), "read uint16")
            return .unsigned(UInt64(v))
        case UInt8(ascii: "i"):
            var v: Int32 = 0
            try check(sd_bus_message_read_basic(message, type, &v), "read int32")
            return .integer(Int64(v))
        case UInt8(ascii: "u"):
            var v: UInt32 = 0
            try check(sd_bus_message_read_basic(message, type, &v), "read uint32")
            return .unsigned(UInt64(v))
        case UInt8(ascii: "x"):
            var v: Int64 = 0
            try check(sd_bus_message_read_basic(message, type, &v), "read int64")
            return .integer(v)
        case UInt8(ascii: "t"):
            var v: UInt64 = 0
            try check(sd_bus_message_read_basic(message, type, &v), "read uint64")
            return .unsigned(v)
        case UInt8(ascii: "d"):
            var v: Double = 0
            try check(sd_bus_message_read_basic(message, type, &v), "read double")
            return .double(v)
        case UInt8(ascii: "v"), UInt8(ascii: "a"), UInt8(ascii: "r"), UInt8(ascii: "e"):
            if depth >= BusReadBounds.depth {
                try skipNext(type, inner)
                return .skipped
            }
            try check(sd_bus_message_enter_container(message, type, inner), "enter \(inner)")
            var items: [BusAnyValue] = []
            var entries: [(key: BusAnyValue, value: BusAnyValue)] = []
            let isDictionary = code == UInt8(ascii: "a") && inner.hasPrefix("{")
            while true {
                if isDictionary {
                    var t: CChar = 0
                    var c: UnsafePointer<CChar>? = nil
                    let more = sd_bus_message_peek_type(message, &t, &c)
                    try check(more, "peek entry")
                    if more == 0 { break }
                    try check(sd_bus_message_enter_container(message, t, c), "enter entry")
                    let key = try anyValue(depth: depth + 1) ?? .skipped
                    let value = try anyValue(depth: depth + 1) ?? .skipped
                    try check(sd_bus_message_exit_container(message), "exit entry")
                    if entries.count < BusReadBounds.elements { entries.append((key, value)) }
                } else {
                    guard let item = try anyValue(depth: depth + 1) else { break }
                    if items.count < BusReadBounds.elements { items.append(item) }
                }
            }
            try check(sd_bus_message_exit_container(message), "exit \(inner)")
            switch code {
            case UInt8(ascii: "v"): return items.first ?? .skipped
            case UInt8(ascii: "a"): return isDictionary ? .dictionary(entries) : .array(items)
            default: return .structure(items)
            }
        default:
            try skipNext(type, inner)
            return .skipped
        }
    }

    private func skipNext(_ type: CChar, _ inner: String) throws(DBusError) {
        let code = Character(UnicodeScalar(UInt8(bitPattern: type)))
        let signature: String
        switch code {
        case "a": signature = "a" + inner
        case "r": signature = "(" + inner + ")"
        case "e": signature = "{" + inner + "}"
        default: signature = String(code)
        }
        try check(sd_bus_message_skip(message, signature), "skip \(signature)")
    }

    /// Cuts on a character boundary at `BusReadBounds.stringBytes`.
    static func cut(_ text: String) -> String {
        guard text.utf8.count > BusReadBounds.stringBytes else { return text }
        var out = ""
        var bytes = 0
        for ch in text {
            let n = ch.utf8.count
            if bytes + n > BusReadBounds.stringBytes { break }
            out.append(ch)
            bytes += n
        }
        return out
    }
}

extension MessageWriter {
    public func int64(_ value: Int64) throws(DBusError) {
        var v = value
        try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "x")), &v), "append int64")
    }
}

extension MessageWriter {
    public func double(_ value: Double) throws(DBusError) {
        var v = value
        try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "d")), &v), "append double")
    }
}
