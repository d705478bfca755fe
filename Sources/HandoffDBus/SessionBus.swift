// SPDX-License-Identifier: MIT OR Apache-2.0
import CSystemd
#if canImport(Glibc)
import Glibc
#endif

/// The agent's connection to the person's session bus (sd-bus), driven by
/// the agent's own loop: the loop polls `fd` for `events` with `timeout`,
/// then calls `process()`. Nothing here blocks or starts a thread, and an
/// idle connection asks for no wake-up (`timeoutMilliseconds` is -1 unless
/// a call is waiting for its reply).
///
/// Threads: not thread-safe; create, use and close it on the loop thread.
/// Handlers run inside `process()`, on that thread.
///
/// Bounds: at most `maxPendingCalls` calls waiting for replies (another
/// fails at once with `.limit`), `maxSubscriptions` signal matches, and
/// `processBudget` messages dispatched per `process()` (the rest on the
/// next turn, with a zero timeout so the loop comes straight back).
public final class SessionBus {
    public static let maxPendingCalls = 128
    public static let maxSubscriptions = 16
    public static let processBudget = 64

    public typealias ReplyHandler = (Result<MessageReader, DBusError>) -> Void
    public typealias SignalHandler = (MessageReader) -> Void

    /// Internal for the exported objects (SessionBus+Export.swift).
    private(set) var bus: OpaquePointer?
    /// Keyed by the sd-bus slot of the call; the slot is ours until the reply.
    private var pending: [OpaquePointer: (member: String, handler: ReplyHandler)] = [:]
    private var subscriptions: [OpaquePointer: SignalHandler] = [:]
    /// Objects this connection serves (SessionBus+Export.swift), by slot.
    var exported: [OpaquePointer: ExportedObjectHandler] = [:]
    /// Dispatch stopped early on the last turn: ask the loop to come back now.
    private var moreToDo = false
    /// Inside sd_bus_process: a handler's `close` waits until it returns.
    private var dispatching = false
    private var closeRequested = false

    /// Told of failures no caller waits for (a signal match the bus refused).
    public var onError: ((DBusError) -> Void)?

    /// Connects to `address` (a D-Bus address), or to the session bus the
    /// environment names (`SessionBusAddress.resolve`). Throws `.noBus` when
    /// there is no address or nothing accepts the connection; the Hello
    /// exchange then completes inside `process()`.
    public init(address: String? = nil, environment: [String: String]? = nil) throws(DBusError) {
        let env = environment ?? Self.processEnvironment()
        guard let target = address ?? SessionBusAddress.resolve(env) else {
            throw DBusError(.noBus, "no session bus: neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set")
        }
        var made: OpaquePointer?
        var r = sd_bus_new(&made)
        guard r >= 0, let made else { throw DBusError(errno: r, "sd_bus_new") }
        r = sd_bus_set_address(made, target)
        if r >= 0 { r = sd_bus_set_bus_client(made, 1) }
        if r >= 0 { r = sd_bus_start(made) }
        guard r >= 0 else {
            sd_bus_unref(made)
            let reason = DBusError(errno: r, "connect")
            throw DBusError(.noBus, "no session bus at \(target): \(reason.message)")
        }
        bus = made
    }

    deinit { close() }

    /// Drops every pending call and subscription (their handlers are not
    /// called) and closes the connection. Idempotent.
    public func close() {
        if dispatching {
            closeRequested = true
            return
        }
        for slot in pending.keys { sd_bus_slot_unref(slot) }
        for slot in subscriptions.keys { sd_bus_slot_unref(slot) }
        for slot in exported.keys { sd_bus_slot_unref(slot) }
        pending.removeAll()
        subscriptions.removeAll()
        exported.removeAll()
        if let bus { sd_bus_flush_close_unref(bus) }
        bus = nil
    }

    /// True until the bus goes away (or `close`).
    public var isConnected: Bool {
        guard let bus else { return false }
        return sd_bus_is_open(bus) > 0
    }

    /// The descriptor to poll; -1 once closed.
    public var fd: Int32 {
        guard let bus else { return -1 }
        let r = sd_bus_get_fd(bus)
        return r >= 0 ? r : -1
    }

    /// poll(2) events to wait for on `fd` (POLLIN, plus POLLOUT while
    /// messages wait to be written); 0 once closed.
    public var events: Int16 {
        guard let bus else { return 0 }
        let r = sd_bus_get_events(bus)
        return r >= 0 ? Int16(truncatingIfNeeded: r) : 0
    }

    /// Milliseconds until `process()` must run even if `fd` stays quiet
    /// (the earliest reply deadline), 0 for "now", -1 for no deadline.
    public var timeoutMilliseconds: Int32 {
        guard let bus else { return -1 }
        if moreToDo { return 0 }
        var deadline: UInt64 = 0
        guard sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max else { return -1 }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowMicros = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        guard deadline > nowMicros else { return 0 }
        let millis = (deadline - nowMicros + 999) / 1000
        return Int32(min(millis, UInt64(Int32.max)))
    }

    /// Reads, writes and dispatches what is ready, up to `processBudget`
    /// messages. Returns false once the connection is gone for good: every
    /// pending call has then been answered with `.disconnected` and the bus
    /// is closed; the loop drops it (and may connect again later).
    @discardableResult
    public func process() -> Bool {
        guard let bus else { return false }
        moreToDo = false
        dispatching = true
        var budget = Self.processBudget
        var result: Int32 = 0
        while budget > 0 {
            result = sd_bus_process(bus, nil)
            if result <= 0 || closeRequested { break }
            budget -= 1
        }
        dispatching = false
        // Negative: the connection is finished (after a disconnect sd-bus
        // first answers the pending calls, then says -ENOTCONN).
        if closeRequested || result < 0 {
            closeRequested = false
            close()
            return false
        }
        moreToDo = budget == 0
        return true
    }

    /// Calls `member` and hands the reply (or its error) to `reply`, on a
    /// later `process()`. `build` appends the arguments. The call's own
    /// timeout is `timeout` seconds. `autoStart` false: the bus does not
    /// start the destination's service when no one owns the name (it
    /// answers ServiceUnknown). Throws, without calling `reply`, when
    /// the call cannot be sent (bound reached, bad argument, no bus).
    public func call(destination: String, path: String, interface: String, member: String,
                     timeout: Double, autoStart: Bool = true,
                     build: (MessageWriter) throws(DBusError) -> Void = { _ throws(DBusError) in },
                     reply: @escaping ReplyHandler) throws(DBusError) {
        guard let bus, isConnected else { throw DBusError(.disconnected, "\(member): the bus connection is closed") }
        guard pending.count < Self.maxPendingCalls else {
            throw DBusError(.limit, "\(member): \(Self.maxPendingCalls) calls already wait for replies")
        }
        var message: OpaquePointer?
        try check(sd_bus_message_new_method_call(bus, &message, destination, path, interface, member), "\(member)")
        defer { sd_bus_message_unref(message) }
        if !autoStart { try check(sd_bus_message_set_auto_start(message, 0), "\(member): auto-start") }
        try build(MessageWriter(message: message!))
        var slot: OpaquePointer?
        let micros = UInt64(max(0.001, timeout) * 1_000_000)
        try check(sd_bus_call_async(bus, &slot, message, Self.replyTrampoline,
                                    Unmanaged.passUnretained(self).toOpaque(), micros), "\(member)")
        pending[slot!] = (member, reply)
    }

    /// Subscribes to a signal; `handler` runs for each one that matches.
    /// `arg0` narrows on the first string argument (e.g. one name's
    /// NameOwnerChanged) so the bus does not wake the agent for the rest.
    /// Returns a token for `unsubscribe`.
    @discardableResult
    public func subscribe(sender: String?, path: String?, interface: String, member: String, arg0: String? = nil,
                          handler: @escaping SignalHandler) throws(DBusError) -> Subscription {
        guard let bus, isConnected else { throw DBusError(.disconnected, "\(member): the bus connection is closed") }
        guard subscriptions.count < Self.maxSubscriptions else {
            throw DBusError(.limit, "\(member): \(Self.maxSubscriptions) signal subscriptions already")
        }
        var rule = "type='signal',interface='\(interface)',member='\(member)'"
        for (key, value) in [("sender", sender), ("path", path), ("arg0", arg0)] {
            guard let value else { continue }
            guard !value.contains("'") && !value.contains("\\") else {
                throw DBusError(.invalidArgument, "\(member): \(key) \(value) cannot be matched")
            }
            rule += ",\(key)='\(value)'"
        }
        var slot: OpaquePointer?
        try check(sd_bus_add_match_async(bus, &slot, rule, Self.signalTrampoline, Self.matchInstalledTrampoline,
                                         Unmanaged.passUnretained(self).toOpaque()),
                  "subscribe to \(interface).\(member)")
        subscriptions[slot!] = handler
        return Subscription(slot: slot!)
    }

    public func unsubscribe(_ subscription: Subscription) {
        if subscriptions.removeValue(forKey: subscription.slot) != nil { sd_bus_slot_unref(subscription.slot) }
    }

    /// Calls waiting for their replies (for bounds and tests).
    public var pendingCallCount: Int { pending.count }

    public struct Subscription: Hashable {
        let slot: OpaquePointer
    }

    // MARK: - Dispatch from sd-bus

    private func deliverReply(_ message: OpaquePointer) {
        guard let bus, let slot = sd_bus_get_current_slot(bus), let (member, handler) = pending.removeValue(forKey: slot)
        else { return }
        // sd-bus holds its own reference while the handler runs.
        sd_bus_slot_unref(slot)
        if let error = sd_bus_message_get_error(message) {
            var failure = DBusError(reply: error, member)
            if !isConnected { failure.kind = .disconnected }
            handler(.failure(failure))
        } else {
            handler(.success(MessageReader(message: message)))
        }
    }

    private func deliverSignal(_ message: OpaquePointer) {
        guard let bus, let slot = sd_bus_get_current_slot(bus), let handler = subscriptions[slot] else { return }
        handler(MessageReader(message: message))
    }

    private func matchInstalled(_ message: OpaquePointer) {
        if let error = sd_bus_message_get_error(message) {
            onError?(DBusError(reply: error, "AddMatch"))
        }
    }

    private static let replyTrampoline: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        Unmanaged<SessionBus>.fromOpaque(userdata).takeUnretainedValue().deliverReply(message)
        return 0
    }

    private static let signalTrampoline: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        Unmanaged<SessionBus>.fromOpaque(userdata).takeUnretainedValue().deliverSignal(message)
        return 0
    }

    private static let matchInstalledTrampoline: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        Unmanaged<SessionBus>.fromOpaque(userdata).takeUnretainedValue().matchInstalled(message)
        return 0
    }

    /// The variables `SessionBusAddress.resolve` reads, from this process.
    public static func processEnvironment() -> [String: String] {
        var out: [String: String] = [:]
        for name in ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"] {
            if let value = getenv(name) { out[name] = String(cString: value) }
        }
        return out
    }
}
