// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus
/// Desktop notifications through org.freedesktop.Notifications (the
/// Desktop Notifications spec): one notification per activity the person
/// can continue, with a "Continue" action, replaced when the activity
/// changes and closed when it goes (docs/agent.md §6).
///
/// `Key` is the agent's name for a notification (an activity id). The
/// notifier maps keys to the server's ids, and hears the server's signals
/// only for ids it made (other apps' notifications share the server).
///
/// Threads: the bus's loop thread only; `onEvent` runs inside
/// `SessionBus.process()`.
///
/// Failure: no server, or one that fails, is reported once as
/// `.unavailable` (again only after it was `.available` in between); the
/// notifier keeps what it was asked to show and shows it when a server
/// answers: on the next `show`, or when a server takes the name.
///
/// Re-show (docs/agent.md §6): when the server's name changes owner (the
/// server restarted, crashed or was replaced), the old ids mean nothing;
/// every notification still wanted (not closed by the agent, not
/// dismissed by the person) is sent again to the new server.
///
/// Bounds: at most `maxNotifications` keys remembered (showing one more
/// closes the oldest), one call in flight per key, at most
/// `maxCapabilities` capabilities read.
public final class Notifier<Key: Hashable> {
    public static var maxNotifications: Int { 32 }
    public static var maxCapabilities: Int { 64 }
    /// Seconds a call to the server may take.
    public static var callTimeout: Double { 10 }

    public static var serverName: String { "org.freedesktop.Notifications" }
    static var objectPath: String { "/org/freedesktop/Notifications" }
    static var interface: String { "org.freedesktop.Notifications" }
    /// The action that continues the activity, and its label.
    public static var continueAction: String { "continue" }

    public enum CloseReason: Equatable, Sendable {
        case expired, dismissed, closedByCall, undefined

        init(code: UInt32) {
            switch code {
            case 1: self = .expired
            case 2: self = .dismissed
            case 3: self = .closedByCall
            default: self = .undefined
            }
        }
    }

    public enum Event {
        /// The person chose `action` ("continue"; "default" is a click on
        /// the notification itself on servers that offer it). The token,
        /// when the server sent one, lets the launched app take focus.
        case actionInvoked(Key, action: String, activationToken: String?)
        /// Closed by the server or the person (not by `close`).
        case closed(Key, reason: CloseReason)
        /// No notification server, or none that answers: log it (once).
        case unavailable(DBusError)
        /// A server answers (again); `capabilities` is what it said.
        case available(capabilities: Set<String>)
        /// A call failed for another reason (logged; nothing else to do).
        case failed(DBusError)
    }

    private enum ServerState {
        case unknown, querying, ready(Set<String>), unavailable
    }

    private struct Entry {
        var content: NotificationContent
        /// The server's id once Notify has answered.
        var id: UInt32?
        /// Tells a reply for this entry from one for an earlier entry of
        /// the same key that was closed while its Notify was in flight.
        var generation: UInt64
        var inFlight = false
        /// Sent again when the call in flight answers.
        var resend = false
        /// The server's `ActivationToken` for this notification, for the
        /// action that follows it.
        var activationToken = ActivationToken.Held()
        /// A lasting one the server let expire: sent again only to a new server.
        var expired = false
    }

    private let bus: SessionBus
    private let appName: String
    private let onEvent: (Event) -> Void
    private var state = ServerState.unknown
    private var reportedUnavailable = false
    private var entries: [Key: Entry] = [:]
    /// Keys oldest first, for eviction.
    private var order: [Key] = []
    private var keysByID: [UInt32: Key] = [:]
    private var generations: UInt64 = 0
    /// Counts server owners seen: an answer from an earlier one is void.
    private var epoch: UInt64 = 0
    private var subscriptions: [SessionBus.Subscription] = []

    /// Subscribes to the server's signals and asks its capabilities.
    /// Throws only when the bus refuses the subscriptions (closed, bounds).
    public init(bus: SessionBus, appName: String = "Handoff", onEvent: @escaping (Event) -> Void) throws(DBusError) {
        self.bus = bus
        self.appName = appName
        self.onEvent = onEvent
        let name = Self.serverName, path = Self.objectPath, iface = Self.interface
        subscriptions.append(try bus.subscribe(sender: name, path: path, interface: iface,
                                               member: "ActionInvoked") { [weak self] m in
            guard let id = try? m.uint32(), let action = try? m.string() else { return }
            self?.actionInvoked(id: id, action: action)
        })
        subscriptions.append(try bus.subscribe(sender: name, path: path, interface: iface,
                                               member: "ActivationToken") { [weak self] m in
            guard let id = try? m.uint32(), let token = try? m.string() else { return }
            self?.activationToken(id: id, token: token)
        })
        subscriptions.append(try bus.subscribe(sender: name, path: path, interface: iface,
                                               member: "NotificationClosed") { [weak self] m in
            guard let id = try? m.uint32(), let reason = try? m.uint32() else { return }
            self?.serverClosed(id: id, reason: CloseReason(code: reason))
        })
        subscriptions.append(try bus.subscribe(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                               interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
                                               arg0: name) { [weak self] m in
            guard (try? m.string()) == name, let old = try? m.string(), let new = try? m.string() else { return }
            self?.serverChanged(hadOwner: !old.isEmpty, hasOwner: !new.isEmpty)
        })
        queryCapabilities()
    }

    /// Its signal matches go with it; notifications it showed stay (the
    /// agent closes them first when it means to).
    deinit {
        for subscription in subscriptions { bus.unsubscribe(subscription) }
    }

    /// What the server said it can do; nil until it answered.
    public var capabilities: Set<String>? {
        if case .ready(let caps) = state { return caps }
        return nil
    }

    /// Keys remembered (shown, or on their way).
    public var count: Int { entries.count }

    /// Shows `content` for `key`, replacing what `key` showed before.
    public func show(_ content: NotificationContent, for key: Key) {
        if var entry = entries[key] {
            // Unchanged and shown (or on its way): nothing to send, so a
            // keep-alive does not make the server show it again.
            if entry.content == content, entry.id != nil || entry.inFlight || entry.expired { return }
            entry.expired = false
            entry.content = content
            if entry.inFlight { entry.resend = true }
            entries[key] = entry
            if !entry.inFlight { send(key) }
            return
        }
        if entries.count >= Self.maxNotifications, let oldest = order.first { close(oldest) }
        generations += 1
        entries[key] = Entry(content: content, generation: generations)
        order.append(key)
        send(key)
    }

    /// Withdraws `key`'s notification. No `.closed` event follows. Forgotten
    /// at once; a Notify still in flight is closed when its id arrives.
    public func close(_ key: Key) {
        guard let entry = entries[key] else { return }
        forget(key)
        if let id = entry.id, !entry.inFlight { sendClose(id) }
    }

    // MARK: - Calls

    private func queryCapabilities() {
        state = .querying
        do {
            try bus.call(destination: Self.serverName, path: Self.objectPath, interface: Self.interface,
                         member: "GetCapabilities", timeout: Self.callTimeout) { [weak self] result in
                self?.capabilitiesAnswered(result.flatMap { reader in
                    Result { () throws(DBusError) in Set(try reader.strings(limit: Self.maxCapabilities)) }
                })
            }
        } catch {
            capabilitiesAnswered(.failure(error))
        }
    }

    private func capabilitiesAnswered(_ result: Result<Set<String>, DBusError>) {
        switch result {
        case .success(let caps):
            state = .ready(caps)
            if reportedUnavailable { reportedUnavailable = false }
            onEvent(.available(capabilities: caps))
            for key in order where entries[key]?.inFlight == false && entries[key]?.id == nil
                && entries[key]?.expired == false { send(key) }
        case .failure(let error):
            becameUnavailable(error)
        }
    }

    /// Sends Notify for `key` when the server is known; else asks for it first.
    private func send(_ key: Key) {
        guard var entry = entries[key] else { return }
        let caps: Set<String>
        switch state {
        case .ready(let c): caps = c
        case .querying: return  // sent when the capabilities arrive
        case .unknown, .unavailable:
            queryCapabilities()
            return
        }
        let (summary, body) = entry.content.rendered(capabilities: caps)
        var hints: [(String, BusVariant)] = [("urgency", .byte(entry.content.urgency))]
        if let desktop = entry.content.desktopEntry { hints.append(("desktop-entry", .string(desktop))) }
        if let image = entry.content.imagePath { hints.append(("image-path", .string(image))) }
        if entry.content.transient { hints.append(("transient", .bool(true))) }
        // Resident: kept by a server with a history until the agent closes it.
        if entry.content.lasting, caps.contains("persistence") { hints.append(("resident", .bool(true))) }
        let offered = entry.content.offeredActions.flatMap { [$0.key, $0.label] }
        let actions = caps.contains("actions") ? offered : []
        let replaces = entry.id ?? 0
        let icon = entry.content.icon
        let expire: Int32 = entry.content.lasting ? 0 : -1
        let generation = entry.generation, epoch = self.epoch
        entry.inFlight = true
        entry.resend = false
        entries[key] = entry
        do {
            try bus.call(destination: Self.serverName, path: Self.objectPath, interface: Self.interface,
                         member: "Notify", timeout: Self.callTimeout, build: { [appName] (w) throws(DBusError) in
                try w.string(appName)
                try w.uint32(replaces)
                try w.string(icon)
                try w.string(summary)
                try w.string(body)
                try w.strings(actions)
                try w.dictionary(hints)
                // Lasting: never expires (closed by the agent when the
                // activity goes); else the server's default expiry.
                try w.int32(expire)
            }) { [weak self] result in
                guard let self, self.epoch == epoch else { return }
                self.notified(key, generation, result.flatMap { reader in Result { () throws(DBusError) in try reader.uint32() } })
            }
        } catch {
            notified(key, generation, .failure(error))
        }
    }

    private func notified(_ key: Key, _ generation: UInt64, _ result: Result<UInt32, DBusError>) {
        guard var entry = entries[key], entry.generation == generation else {
            // Closed while the call was in flight: close what it showed.
            if case .success(let id) = result { sendClose(id) }
            return
        }
        entry.inFlight = false
        switch result {
        case .success(let id):
            if let old = entry.id, old != id { keysByID[old] = nil }
            entry.id = id
            keysByID[id] = key
            entries[key] = entry
            if entry.resend { send(key) }
        case .failure(let error):
            if error.kind == .noService || error.kind == .disconnected {
                // Kept: shown when a server appears.
                entries[key] = entry
                becameUnavailable(error)
            } else {
                forget(key)
                onEvent(.failed(error))
            }
        }
    }

    /// Asks the server to close `id`. Its answer is not reported: the
    /// server may have closed it already (a click or a dismissal races the
    /// call; servers answer "Invalid notification identifier"), or be gone,
    /// and either way the notification is no longer shown, which was the
    /// point. Nothing alarming on the normal path (docs/agent.md §6).
    private func sendClose(_ id: UInt32) {
        try? bus.call(destination: Self.serverName, path: Self.objectPath, interface: Self.interface,
                      member: "CloseNotification", timeout: Self.callTimeout,
                      build: { (w) throws(DBusError) in try w.uint32(id) }) { _ in }
    }

    // MARK: - Server state and signals

    /// What waited for a server stays (bounded by `maxNotifications`): a
    /// server that appears later shows it.
    private func becameUnavailable(_ error: DBusError) {
        state = .unavailable
        if !reportedUnavailable {
            reportedUnavailable = true
            onEvent(.unavailable(error))
        }
    }

    /// The server's name changed owner. When it had one, that server's ids
    /// are void (a new server could hand the same numbers to other apps):
    /// every entry is to be sent again, as new. When a server now owns the
    /// name, it is asked its capabilities, and what is wanted is shown.
    /// A Notify in flight to the old server is sent again when it answers
    /// (`resend`), its id ignored.
    private func serverChanged(hadOwner: Bool, hasOwner: Bool) {
        if hadOwner {
            epoch += 1
            keysByID.removeAll()
            for key in order {
                guard var entry = entries[key] else { continue }
                entry.id = nil
                entry.activationToken = .init()
                entry.expired = false
                // An answer still to come is the old server's: `notified`
                // drops it (by epoch) and closes nothing.
                entry.inFlight = false
                entries[key] = entry
            }
        }
        guard hasOwner || hadOwner else { return }
        if case .querying = state, !hadOwner { return }
        state = .unknown
        if !entries.isEmpty { queryCapabilities() }
    }

    private func actionInvoked(id: UInt32, action: String) {
        guard let key = keysByID[id] else { return }
        let token = entries[key]?.activationToken.take()
        onEvent(.actionInvoked(key, action: action, activationToken: token))
    }

    private func activationToken(id: UInt32, token: String) {
        guard let key = keysByID[id] else { return }
        // A token cut short is no token: one over 256 bytes is dropped;
        // one no action follows within 10 s is dropped too.
        entries[key]?.activationToken.keep(token)
    }

    /// A lasting notification the server let expire anyway (a server
    /// that ignores expire_timeout 0) stays wanted, not shown: a server
    /// that takes over shows it again. Anything else closed is forgotten.
    private func serverClosed(id: UInt32, reason: CloseReason) {
        guard let key = keysByID[id] else { return }
        if reason == .expired, var entry = entries[key], entry.content.lasting {
            keysByID[id] = nil
            entry.id = nil
            entry.expired = true
            entries[key] = entry
        } else {
            forget(key)
        }
        onEvent(.closed(key, reason: reason))
    }

    private func forget(_ key: Key) {
        if let id = entries.removeValue(forKey: key)?.id, keysByID[id] == key { keysByID[id] = nil }
        order.removeAll { $0 == key }
    }
}
