// SPDX-License-Identifier: MIT OR Apache-2.0
import CSystemd

/// A value a served object hands out (a property, a dbusmenu item's
/// property): the types the tray's specs use.
public enum BusValue {
    case string(String)
    case bool(Bool)
    case int32(Int32)
    case uint32(UInt32)
    case objectPath(String)
    case strings([String])
    /// Anything else: its signature and how to append it.
    case custom(signature: String, write: (MessageWriter) throws(DBusError) -> Void)

    public var signature: String {
        switch self {
        case .string: "s"
        case .bool: "b"
        case .int32: "i"
        case .uint32: "u"
        case .objectPath: "o"
        case .strings: "as"
        case .custom(let signature, _): signature
        }
    }
}

/// Containers and values for replies and signals of served objects.
extension MessageWriter {
    public func enter(_ type: Character, _ contents: String) throws(DBusError) {
        try check(sd_bus_message_open_container(message, CChar(type.asciiValue!), contents), "open container \(contents)")
    }

    public func leave() throws(DBusError) {
        try check(sd_bus_message_close_container(message), "close container")
    }

    public func objectPath(_ value: String) throws(DBusError) {
        try check(value.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "o")), $0) }, "append path")
    }

    /// The value itself (not in a variant).
    public func value(_ value: BusValue) throws(DBusError) {
        switch value {
        case .string(let s): try string(s)
        case .bool(let b): try bool(b)
        case .int32(let i): try int32(i)
        case .uint32(let u): try uint32(u)
        case .objectPath(let p): try objectPath(p)
        case .strings(let list): try strings(list)
        case .custom(_, let write): try write(self)
        }
    }

    /// `v`
    public func variant(_ value: BusValue) throws(DBusError) {
        try enter("v", value.signature)
        try self.value(value)
        try leave()
    }

    /// `a{sv}`
    public func vardict(_ entries: [(String, BusValue)]) throws(DBusError) {
        try enter("a", "{sv}")
        for (key, value) in entries {
            try enter("e", "sv")
            try string(key)
            try variant(value)
            try leave()
        }
        try leave()
    }

    /// `ai`
    public func int32s(_ values: [Int32]) throws(DBusError) {
        try enter("a", "i")
        for v in values { try int32(v) }
        try leave()
    }
}

extension MessageReader {
    public func int32() throws(DBusError) -> Int32 {
        var v: Int32 = 0
        try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "i")), &v), "read int32")
        return v
    }

    /// `ai`, at most `limit` elements kept (the rest read and dropped).
    public func int32s(limit: Int) throws(DBusError) -> [Int32] {
        try check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "i"), "enter array")
        var out: [Int32] = []
        while true {
            var v: Int32 = 0
            let r = sd_bus_message_read_basic(message, CChar(UInt8(ascii: "i")), &v)
            try check(r, "read array element")
            if r == 0 { break }
            if out.count < limit { out.append(v) }
        }
        try check(sd_bus_message_exit_container(message), "exit array")
        return out
    }

    /// Skips one complete value of type `signature`.
    public func skip(_ signature: String) throws(DBusError) {
        try check(sd_bus_message_skip(message, signature), "skip \(signature)")
    }

    public func enter(_ type: Character, _ contents: String) throws(DBusError) -> Bool {
        let r = sd_bus_message_enter_container(message, CChar(type.asciiValue!), contents)
        try check(r, "enter \(contents)")
        return r > 0
    }

    public func leave() throws(DBusError) {
        try check(sd_bus_message_exit_container(message), "exit container")
    }
}
