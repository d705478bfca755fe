// SPDX-License-Identifier: MIT OR Apache-2.0
import CSystemd

/// A method call another process on the bus made to an object we serve.
/// Valid only inside the handler it was given to (sd-bus owns it).
public struct BusMethodCall {
    let message: OpaquePointer
    public let path: String
    public let interface: String
    public let member: String
    /// The arguments' D-Bus signature ("" for none).
    public let signature: String
    public var reader: MessageReader { MessageReader(message: message) }
    /// The caller's unique name ("" when the bus gave none).
    public var sender: String { sd_bus_message_get_sender(message).map { String(cString: $0) } ?? "" }

    init(message: OpaquePointer) {
        self.message = message
        func text(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }
        path = text(sd_bus_message_get_path(message))
        interface = text(sd_bus_message_get_interface(message))
        member = text(sd_bus_message_get_member(message))
        signature = text(sd_bus_message_get_signature(message, 1))
    }
}

/// What a served object answers to a call.
public enum BusMethodResult {
    /// A method return; `build` appends its values (nothing for none).
    case reply((MessageWriter) throws(DBusError) -> Void)
    /// A D-Bus error reply, e.g. org.freedesktop.DBus.Error.InvalidArgs.
    case error(name: String, message: String)
    /// Not ours: sd-bus answers UnknownMethod / UnknownObject.
    case notHandled

    public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    public static let failed = "org.freedesktop.DBus.Error.Failed"

    /// The usual answer to arguments of the wrong types.
    public static func wrongArguments(_ call: BusMethodCall, expected: String) -> BusMethodResult {
        .error(name: invalidArgs, message: "\(call.member) takes (\(expected)), not (\(call.signature))")
    }
}

public typealias ExportedObjectHandler = (BusMethodCall) -> BusMethodResult

/// Serving objects (docs/agent.md §6 "The tray"): a name, object paths
/// whose method calls a handler answers, signals. Same thread rules as the
/// rest of `SessionBus`: handlers run inside `process()`.
///
/// Bounds: a handler answers each call at once (nothing is queued here);
/// replies and signals go to sd-bus's own bounded write queue, and a
/// failure to queue one is dropped and counted, never retried. A handler
/// that throws while building a reply answers `Failed` instead.
extension SessionBus {
    public static let maxExportedObjects = 8

    public struct ExportedObject: Hashable {
        let slot: OpaquePointer
    }

    /// Asks the bus for `name` without queueing (RequestName, flag
    /// DO_NOT_QUEUE); `done` hears success when we are its primary owner.
    public func requestName(_ name: String, done: @escaping (Result<Void, DBusError>) -> Void) throws(DBusError) {
        try call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                 member: "RequestName", timeout: 10, build: { (w) throws(DBusError) in
            try w.string(name)
            try w.uint32(4)  // DBUS_NAME_FLAG_DO_NOT_QUEUE
        }) { result in
            switch result {
            case .success(let reader):
                // 1: primary owner; 4: we already were.
                let code = (try? reader.uint32()) ?? 0
                done(code == 1 || code == 4 ? .success(()) : .failure(DBusError(.failed, "\(name) is owned by another process (RequestName answered \(code))")))
            case .failure(let error):
                done(.failure(error))
            }
        }
    }

    /// Serves `path`: every method call to it goes to `handler`.
    public func export(path: String, handler: @escaping ExportedObjectHandler) throws(DBusError) -> ExportedObject {
        guard let bus, isConnected else { throw DBusError(.disconnected, "export \(path): the bus connection is closed") }
        guard exported.count < Self.maxExportedObjects else {
            throw DBusError(.limit, "export \(path): \(Self.maxExportedObjects) objects already")
        }
        var slot: OpaquePointer?
        try check(sd_bus_add_object(bus, &slot, path, Self.methodTrampoline, Unmanaged.passUnretained(self).toOpaque()),
                  "export \(path)")
        exported[slot!] = handler
        return ExportedObject(slot: slot!)
    }

    public func unexport(_ object: ExportedObject) {
        if exported.removeValue(forKey: object.slot) != nil { sd_bus_slot_unref(object.slot) }
    }

    /// Emits a signal from `path`; `build` appends its values.
    public func emit(path: String, interface: String, member: String,
                     build: (MessageWriter) throws(DBusError) -> Void = { _ throws(DBusError) in }) throws(DBusError) {
        guard let bus, isConnected else { throw DBusError(.disconnected, "\(member): the bus connection is closed") }
        var message: OpaquePointer?
        try check(sd_bus_message_new_signal(bus, &message, path, interface, member), member)
        defer { sd_bus_message_unref(message) }
        try build(MessageWriter(message: message!))
        try check(sd_bus_send(bus, message, nil), "send \(member)")
    }

    private func dispatchCall(_ message: OpaquePointer) -> Int32 {
        guard let bus, let slot = sd_bus_get_current_slot(bus), let handler = exported[slot] else { return 0 }
        // Only method calls; a signal or reply sent to the path is not ours.
        var type: UInt8 = 0
        guard sd_bus_message_get_type(message, &type) >= 0, type == 1 else { return 0 }
        let call = BusMethodCall(message: message)
        switch handler(call) {
        case .notHandled:
            return 0
        case .error(let name, let text):
            sendError(to: message, name: name, text: text)
        case .reply(let build):
            var reply: OpaquePointer?
            guard sd_bus_message_new_method_return(message, &reply) >= 0, let reply else { return 1 }
            defer { sd_bus_message_unref(reply) }
            do {
                try build(MessageWriter(message: reply))
            } catch {
                sendError(to: message, name: BusMethodResult.failed, text: "\(call.member): \(error.message)")
                return 1
            }
            _ = sd_bus_send(bus, reply, nil)
        }
        return 1
    }

    private func sendError(to call: OpaquePointer, name: String, text: String) {
        guard let bus else { return }
        name.withCString { n in
            text.withCString { t in
                var error = sd_bus_error(name: n, message: t, _need_free: 0)
                var reply: OpaquePointer?
                if sd_bus_message_new_method_error(call, &reply, &error) >= 0, let reply {
                    _ = sd_bus_send(bus, reply, nil)
                    sd_bus_message_unref(reply)
                }
            }
        }
    }

    private static let methodTrampoline: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        return Unmanaged<SessionBus>.fromOpaque(userdata).takeUnretainedValue().dispatchCall(message)
    }
}
