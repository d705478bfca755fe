// SPDX-License-Identifier: MIT OR Apache-2.0
import CSystemd

/// A value in an `a{sv}` dictionary (notification hints, platform data).
public enum BusVariant: Sendable, Equatable {
    case string(String)
    case byte(UInt8)
    case bool(Bool)
    case int32(Int32)
    case uint32(UInt32)
    /// `au` (systemd's `PIDs`).
    case uint32Array([UInt32])
}

/// Appends arguments to a method call being built (sd-bus's non-variadic
/// calls; Swift cannot call sd_bus_message_append). Strings are sent
/// without NUL bytes: sd-bus refuses them and C would cut them short.
public struct MessageWriter {
    let message: OpaquePointer

    public func string(_ value: String) throws(DBusError) {
        let clean = value.contains("\0") ? value.filter { $0 != "\0" } : value
        try check(clean.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }, "append string")
    }

    public func uint32(_ value: UInt32) throws(DBusError) {
        var v = value
        try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "u")), &v), "append uint32")
    }

    public func int32(_ value: Int32) throws(DBusError) {
        var v = value
        try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "i")), &v), "append int32")
    }

    public func byte(_ value: UInt8) throws(DBusError) {
        var v = value
        try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "y")), &v), "append byte")
    }

    public func bool(_ value: Bool) throws(DBusError) {
        var v: Int32 = value ? 1 : 0  // D-Bus booleans are 32-bit
        try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "b")), &v), "append bool")
    }

    /// `as`
    public func strings(_ values: [String]) throws(DBusError) {
        try open("a", "s")
        for value in values { try string(value) }
        try close()
    }

    /// `a{sv}`, in the order given.
    public func dictionary(_ entries: [(String, BusVariant)]) throws(DBusError) {
        try pairs(entries, array: "{sv}", entry: "e")
    }

    /// `a(sv)` (systemd's unit properties), in the order given.
    public func properties(_ entries: [(String, BusVariant)]) throws(DBusError) {
        try pairs(entries, array: "(sv)", entry: "r")
    }

    /// An empty array of the element type `element` (e.g. `(sa(sv))`).
    public func emptyArray(of element: String) throws(DBusError) {
        try open("a", element)
        try close()
    }

    private func pairs(_ entries: [(String, BusVariant)], array: String, entry: Character) throws(DBusError) {
        try open("a", array)
        for (key, value) in entries {
            try open(entry, "sv")
            try string(key)
            switch value {
            case .string(let s): try open("v", "s"); try string(s)
            case .byte(let b): try open("v", "y"); try byte(b)
            case .bool(let b): try open("v", "b"); try bool(b)
            case .int32(let i): try open("v", "i"); try int32(i)
            case .uint32(let u): try open("v", "u"); try uint32(u)
            case .uint32Array(let values):
                try open("v", "au")
                try open("a", "u")
                for u in values { try uint32(u) }
                try close()
            }
            try close()
            try close()
        }
        try close()
    }

    private func open(_ type: Character, _ contents: String) throws(DBusError) {
        try check(sd_bus_message_open_container(message, CChar(type.asciiValue!), contents), "open container \(contents)")
    }

    private func close() throws(DBusError) {
        try check(sd_bus_message_close_container(message), "close container")
    }
}

/// Reads the arguments of a reply or signal, valid only inside the handler
/// it was given to (sd-bus owns the message).
public struct MessageReader {
    let message: OpaquePointer

    public func uint32() throws(DBusError) -> UInt32 {
        var v: UInt32 = 0
        try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &v), "read uint32")
        return v
    }

    public func string() throws(DBusError) -> String {
        var p: UnsafePointer<CChar>? = nil
        try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &p), "read string")
        return p.map { String(cString: $0) } ?? ""
    }

    /// `as`, at most `limit` elements kept (the rest are read and dropped).
    public func strings(limit: Int) throws(DBusError) -> [String] {
        try check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "s"), "enter array")
        var out: [String] = []
        while true {
            var p: UnsafePointer<CChar>? = nil
            let r = sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &p)
            try check(r, "read array element")
            if r == 0 { break }
            if out.count < limit, let p { out.append(String(cString: p)) }
        }
        try check(sd_bus_message_exit_container(message), "exit array")
        return out
    }
}

@inline(__always)
func check(_ result: Int32, _ what: String) throws(DBusError) {
    if result < 0 { throw DBusError(errno: result, what) }
}
