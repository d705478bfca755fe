// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus
import HandoffModel

/// Puts programs the launcher started into transient systemd scopes of
/// their own (docs/agent.md §5), as desktops do, so the user manager
/// accounts for them apart from the agent and they outlive its restarts:
/// `org.freedesktop.systemd1.Manager.StartTransientUnit` on the session bus
/// (the user bus, where `systemd --user` is `org.freedesktop.systemd1`),
/// with the program's pid as `PIDs`. Without a user manager on the bus
/// (no owner of the name: the bus is told not to start one) the answer is
/// an error and the program stays where it is.
///
/// Threads: the loop thread; `completion` runs inside `SessionBus.process()`.
public enum SystemdScopes {
    static let destination = "org.freedesktop.systemd1"
    static let path = "/org/freedesktop/systemd1"
    static let interface = "org.freedesktop.systemd1.Manager"
    /// Seconds the manager may take to answer.
    public static var callTimeout: Double { 10 }
    /// systemd's bound on a unit name.
    static let maxUnitName = 255

    /// `app-handoff-<id>-<random>.scope` (the "XDG standardization for
    /// applications" form): `<id>` is the desktop id less `.desktop`,
    /// escaped as `systemd-escape` does (every byte but `A-Za-z0-9:_.` as
    /// `\xNN`, so `-` stays the separator; a leading `.` too), `<random>`
    /// 16 hex digits. Nil when the name would be over 255 bytes.
    public static func unitName(desktopID: String, random: UInt64) -> String? {
        let id = desktopID.hasSuffix(".desktop") ? desktopID.dropLast(".desktop".count) : Substring(desktopID)
        var escaped = ""
        for (index, byte) in id.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: ":"), UInt8(ascii: "_"):
                escaped.append(Character(Unicode.Scalar(byte)))
            case UInt8(ascii: ".") where index > 0:
                escaped.append(".")
            default:
                escaped += "\\x" + String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
            }
        }
        let hex = String(random, radix: 16)
        let name = "app-handoff-\(escaped)-\(String(repeating: "0", count: 16 - hex.count))\(hex).scope"
        return !escaped.isEmpty && name.utf8.count <= maxUnitName ? name : nil
    }

    /// Sends StartTransientUnit(name, "fail", [PIDs, Description,
    /// CollectMode=inactive-or-failed], []) for `pid`; `completion` hears
    /// the unit's name or the error (also when the call cannot be sent).
    static func place(on bus: SessionBus, pid: Int32, desktopID: String, description: String,
                      completion: @escaping (Result<String, HandoffError>) -> Void) {
        guard pid > 0, let unit = unitName(desktopID: desktopID, random: UInt64.random(in: 0...UInt64.max)) else {
            return completion(.failure(HandoffError(.invalidArgument, "no scope name for \(desktopID) (pid \(pid))")))
        }
        let properties: [(String, BusVariant)] = [
            ("Description", .string(String(description.prefix(200)))),
            ("PIDs", .uint32Array([UInt32(pid)])),
            ("CollectMode", .string("inactive-or-failed")),
        ]
        do {
            try bus.call(destination: destination, path: path, interface: interface, member: "StartTransientUnit",
                         timeout: callTimeout, autoStart: false, build: { (w) throws(DBusError) in
                try w.string(unit)
                try w.string("fail")
                try w.properties(properties)
                try w.emptyArray(of: "(sa(sv))")
            }) { result in
                completion(result.map { _ in unit }.mapError { HandoffError(scoping: unit, $0) })
            }
        } catch {
            completion(.failure(HandoffError(scoping: unit, error)))
        }
    }
}

extension HandoffError {
    /// No user manager on the bus is `.connectionUnavailable` (the normal
    /// case on desktops without systemd user sessions: logged once), any
    /// other failure `.handoffFailed`.
    init(scoping unit: String, _ error: DBusError) {
        if error.kind == .noService {
            self.init(.connectionUnavailable, "scope \(unit): no systemd user manager on the session bus (\(error.message))")
        } else {
            self.init(.handoffFailed, "scope \(unit): \(error.message)")
        }
    }
}
