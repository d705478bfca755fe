// SPDX-License-Identifier: MIT OR Apache-2.0
/// Where the person's session bus is, found as sd_bus_open_user and
/// libdbus find it: `DBUS_SESSION_BUS_ADDRESS`, else the user bus socket
/// `$XDG_RUNTIME_DIR/bus`. Resolved here rather than inside sd-bus so the
/// rule is visible, testable without touching the process environment, and
/// the error can say which variable was missing.
public enum SessionBusAddress {
    /// The address to connect to, or nil when the environment names none.
    public static func resolve(_ environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty {
            return address
        }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return "unix:path=" + escape(runtime + "/bus")
        }
        return nil
    }

    /// D-Bus address value escaping: bytes other than [A-Za-z0-9_/.-] become %xx
    /// (as sd-bus escapes the runtime directory).
    public static func escape(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "/"),
                 UInt8(ascii: "."), UInt8(ascii: "-"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789abcdef".utf8)
                out += "%"
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0xF)]))
            }
        }
        return out
    }
}
