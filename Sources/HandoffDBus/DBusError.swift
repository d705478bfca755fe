// SPDX-License-Identifier: MIT OR Apache-2.0
import CSystemd
#if canImport(Glibc)
import Glibc
#endif

/// A D-Bus failure the agent logs and survives: no bus, no service behind a
/// name, a call refused or timed out, a local bound reached. Never fatal.
public struct DBusError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No session bus: no address, or nothing listens there.
        case noBus
        /// The bus is there but no one owns the name (and none can be activated).
        case noService
        /// The connection to the bus is gone.
        case disconnected
        /// A local bound (pending calls, argument sizes) refused the call.
        case limit
        /// An argument cannot be sent (e.g. a desktop id that is no bus name).
        case invalidArgument
        /// The call did not answer in time.
        case timedOut
        /// Anything else the peer or sd-bus answered.
        case failed
    }

    public var kind: Kind
    /// The D-Bus error name when there is one (e.g. org.freedesktop.DBus.Error.ServiceUnknown).
    public var name: String
    public var message: String

    public init(_ kind: Kind, name: String = "", _ message: String) {
        self.kind = kind
        self.name = name
        self.message = message
    }

    public var description: String { name.isEmpty ? message : "\(message) (\(name))" }

    /// From a negative errno that an sd-bus function returned.
    init(errno negative: Int32, _ what: String) {
        let code = negative < 0 ? -negative : negative
        let text = String(cString: strerror(code))
        switch code {
        case ECONNRESET, ENOTCONN, EPIPE, ESHUTDOWN:
            self.init(.disconnected, "\(what): \(text)")
        case ETIMEDOUT:
            self.init(.timedOut, "\(what): \(text)")
        case EINVAL:
            self.init(.invalidArgument, "\(what): \(text)")
        default:
            self.init(.failed, "\(what): \(text)")
        }
    }

    /// From the error a method reply carries (sd_bus_message_get_error).
    init(reply error: UnsafePointer<sd_bus_error>, _ what: String) {
        let name = error.pointee.name.map { String(cString: $0) } ?? ""
        let text = error.pointee.message.map { String(cString: $0) } ?? name
        let kind: Kind
        switch name {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
             "org.freedesktop.DBus.Error.Spawn.ServiceNotFound", "org.freedesktop.DBus.Error.Spawn.ExecFailed",
             "org.freedesktop.DBus.Error.Spawn.ChildExited", "org.freedesktop.DBus.Error.Spawn.Failed":
            kind = .noService
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout",
             "org.freedesktop.DBus.Error.TimedOut":
            kind = .timedOut
        case "org.freedesktop.DBus.Error.Disconnected":
            kind = .disconnected
        default:
            kind = .failed
        }
        self.init(kind, name: name, "\(what): \(text)")
    }
}
