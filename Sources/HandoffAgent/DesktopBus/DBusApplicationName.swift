// SPDX-License-Identifier: MIT OR Apache-2.0
/// The D-Bus names of a `DBusActivatable=true` application, derived from
/// its desktop file id as the Desktop Entry spec's "D-Bus Activation"
/// section says: the well-known name is the file name without ".desktop"
/// (org.example.FooViewer.desktop -> org.example.FooViewer), the object path
/// is that name with every "." turned into "/", every "-" into "_" and a
/// leading "/" (/org/example/FooViewer).
public struct DBusApplicationName: Sendable, Equatable {
    public let busName: String
    public let objectPath: String

    /// Nil when the id is no valid well-known bus name (the spec asks such
    /// apps to be named in reverse-DNS form): at least two elements of
    /// [A-Za-z0-9_-], none empty or starting with a digit, 255 bytes at most.
    public init?(desktopID: String) {
        let name = desktopID.hasSuffix(".desktop") ? String(desktopID.dropLast(".desktop".count)) : desktopID
        guard Self.isWellKnownName(name) else { return nil }
        busName = name
        objectPath = "/" + String(name.map { $0 == "." ? "/" : $0 == "-" ? "_" : $0 })
    }

    static func isWellKnownName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 255 else { return false }
        let elements = name.split(separator: ".", omittingEmptySubsequences: false)
        guard elements.count >= 2 else { return false }
        for element in elements {
            guard let first = element.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
            for byte in element.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                     UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    continue
                default:
                    return false
                }
            }
        }
        return true
    }
}
