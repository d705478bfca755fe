// SPDX-License-Identifier: MIT OR Apache-2.0
import CSystemd

/// `t` (uint64) for served objects: times in milliseconds since the
/// epoch do not fit 32 bits.
extension MessageWriter {
    public func uint64(_ value: UInt64) throws(DBusError) {
        var v = value
        try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "t")), &v), "append uint64")
    }
}

extension BusValue {
    public static func uint64(_ value: UInt64) -> BusValue {
        .custom(signature: "t") { (w) throws(DBusError) in try w.uint64(value) }
    }

    /// `aa{sv}`: a list of open dictionaries.
    public static func vardicts(_ list: [[(String, BusValue)]]) -> BusValue {
        .custom(signature: "aa{sv}") { (w) throws(DBusError) in
            try w.enter("a", "a{sv}")
            for entries in list { try w.vardict(entries) }
            try w.leave()
        }
    }

    /// `a{sv}`
    public static func vardict(_ entries: [(String, BusValue)]) -> BusValue {
        .custom(signature: "a{sv}") { (w) throws(DBusError) in try w.vardict(entries) }
    }
}
