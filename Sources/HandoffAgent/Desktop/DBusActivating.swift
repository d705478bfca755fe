import HandoffModel

/// Where a D-Bus-activatable app listens (Desktop Entry Specification,
/// "D-Bus Activation"): the desktop-file id without `.desktop` is its
/// well-known bus name, and the object path is that name with `.` turned
/// into `/` and `-` into `_`, e.g. `org.example.Notes-Beta.desktop` →
/// `org.example.Notes-Beta` at `/org/example/Notes_Beta`.
public struct DBusApplicationAddress: Sendable, Equatable {
    public let busName: String
    public let objectPath: String

    /// Nil unless the id (less `.desktop`) is a valid well-known name: at
    /// least two `.`-separated elements of `A-Za-z0-9_-`, none empty or
    /// starting with a digit, 255 bytes at most.
    public init?(desktopID: String) {
        guard desktopID.hasSuffix(".desktop") else { return nil }
        let name = String(desktopID.dropLast(".desktop".count))
        let elements = name.split(separator: ".", omittingEmptySubsequences: false)
        guard name.utf8.count <= 255, elements.count >= 2 else { return nil }
        for element in elements {
            guard let first = element.utf8.first, !(first >= 0x30 && first <= 0x39) else { return nil }
            for b in element.utf8 {
                let ok = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                    || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
                guard ok else { return nil }
            }
        }
        busName = name
        objectPath = "/" + String(name.map { $0 == "." ? "/" : ($0 == "-" ? "_" : $0) })
    }
}

/// Starts a `DBusActivatable=true` app: the agent's D-Bus part calls
/// `org.freedesktop.Application.Activate(a{sv} platform_data)` on the
/// address on the session bus (the bus starts the app if it is not
/// running). The agent passes no startup-notification id or activation
/// token (it has none), so `platformData` is empty today; an
/// implementation sends each entry as a string variant.
public protocol DBusActivating {
    /// Returns once the call is answered.
    /// - Throws: `.connectionUnavailable` without a session bus,
    ///   `.handoffFailed` when the call fails (the message says why).
    func activate(_ address: DBusApplicationAddress, platformData: [String: String]) throws(HandoffError)
}
