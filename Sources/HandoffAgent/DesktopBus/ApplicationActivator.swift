// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus
/// Starts (or raises) a `DBusActivatable=true` application the way a
/// desktop launcher does: `org.freedesktop.Application.Activate` on the
/// app's well-known name and object path (`DBusApplicationName`), which the
/// bus starts through its D-Bus service file when the app is not running
/// (docs/agent.md §5).
///
/// Platform data: with an activation token (from the notification the
/// person clicked, its ActivationToken signal), both `activation-token`
/// (Wayland xdg-activation) and `desktop-startup-id` (X11 startup
/// notification) carry it, as GLib's launcher does; without one, it is
/// empty.
///
/// Threads: the bus's loop thread only; `completion` runs inside
/// `SessionBus.process()`.
public final class ApplicationActivator {
    /// Seconds an activation may take: the bus may have to start the app
    /// (dbus-daemon's own activation timeout is 25 s).
    public static var callTimeout: Double { 25 }
    static var interface: String { "org.freedesktop.Application" }

    private let bus: SessionBus
    /// Seconds the call may take (`callTimeout` unless told).
    public let timeout: Double

    public init(bus: SessionBus, timeout: Double = ApplicationActivator.callTimeout) {
        self.bus = bus
        self.timeout = timeout
    }

    /// The platform data sent with Activate.
    public static func platformData(activationToken: String?) -> [(String, BusVariant)] {
        guard let token = activationToken, !token.isEmpty else { return [] }
        return [("activation-token", .string(token)), ("desktop-startup-id", .string(token))]
    }

    /// Activates the app whose desktop file id is `desktopID`
    /// ("org.example.App.desktop" or "org.example.App"). Throws at once for
    /// an id that is no bus name or a call that cannot be sent; otherwise
    /// `completion` hears whether the app answered (`.noService` when no
    /// such service is installed).
    public func activate(desktopID: String, activationToken: String? = nil,
                         completion: @escaping (Result<Void, DBusError>) -> Void) throws(DBusError) {
        guard let name = DBusApplicationName(desktopID: desktopID) else {
            throw DBusError(.invalidArgument, "\(desktopID) is not a D-Bus application name (reverse-DNS desktop id)")
        }
        let data = Self.platformData(activationToken: ActivationToken.checked(activationToken))
        try bus.call(destination: name.busName, path: name.objectPath, interface: Self.interface, member: "Activate",
                     timeout: timeout, build: { (w) throws(DBusError) in try w.dictionary(data) }) { result in
            completion(result.map { _ in () })
        }
    }
}
