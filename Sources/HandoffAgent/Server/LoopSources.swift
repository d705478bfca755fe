// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase

/// The `AgentLoopSource`s a reactor watches (a bus connection each:
/// notifications, the tray, the launcher; the history's timers): each
/// source's descriptor is a watch of the reactor, and their pull-style
/// timeouts (sd-bus's `sd_bus_get_timeout`, a timer's next deadline) are
/// one reactor timer, armed before each wait at the earliest. Shared by
/// the agent's loop (`AgentServer`) and the wait before an account
/// (`AccountWait`). Loop thread only.
///
/// No spin: a source is processed when its descriptor is ready or when
/// the deadline it gave before the wait has passed (a timeout of 0 is due
/// at once, and processed then, not found due again without a process);
/// a source that asks for no timeout (-1) and whose descriptor is quiet
/// costs no wake-up.
final class LoopSources: @unchecked Sendable {
    // @unchecked: loop thread only; the timer's handler runs there too.
    /// A registered source, for `remove`.
    struct Key: Hashable { fileprivate let raw: UInt64 }

    private struct Entry {
        let source: any AgentLoopSource
        var fd: Int32 = -1
        var events: Reactor.Events = []
        var watch: Reactor.Watch?
        /// When it asked to be processed, as seen before the last wait.
        var deadline: UInt64?
    }

    private let reactor: Reactor
    private var entries: [UInt64: Entry] = [:]
    private var nextKey: UInt64 = 1
    private var timer: Reactor.Timer?
    private var armed: UInt64?

    /// The owner calls `beforeWait` in one of the reactor's `beforeEachWait` hooks.
    init(reactor: Reactor) {
        self.reactor = reactor
        let me = WeakBox(self)
        timer = reactor.timer { me.value?.processDue() }
    }

    deinit {
        if let timer { reactor.release(timer) }
    }

    /// Watches `source` from the next wait on.
    @discardableResult
    func add(_ source: any AgentLoopSource) -> Key {
        let key = nextKey
        nextKey += 1
        entries[key] = Entry(source: source)
        refresh(key)
        return Key(raw: key)
    }

    /// The loop stops: each says its last words.
    func loopWillStop() {
        for entry in entries.values { entry.source.loopWillStop() }
    }

    /// Stops watching `key`'s source (it says no last words).
    func remove(_ key: Key) {
        guard let entry = entries.removeValue(forKey: key.raw) else { return }
        if let watch = entry.watch { reactor.unwatch(watch) }
    }

    /// Stops watching all of them.
    func removeAll() {
        for entry in entries.values { if let watch = entry.watch { reactor.unwatch(watch) } }
        entries = [:]
        if let timer { reactor.arm(timer, at: nil) }
        armed = nil
    }

    // MARK: Inside

    private func process(_ key: UInt64) {
        guard let entry = entries[key] else { return }
        entries[key]!.deadline = nil
        entry.source.process()
        refresh(key)
    }

    /// The timer: every source whose deadline passed is processed (once;
    /// the next wait asks it again).
    private func processDue() {
        armed = nil   // fired: disarmed
        let now = Monotonic.now()
        for key in entries.keys.sorted() {
            guard let deadline = entries[key]?.deadline, deadline <= now else { continue }
            process(key)
        }
    }

    /// Before each wait (the owner's `beforeEachWait` hook): what each
    /// source wants watched now (what this turn did may have queued a bus
    /// message or connected a bus), and the timer at the earliest of their
    /// deadlines (re-armed only when that changed).
    func beforeWait() {
        var earliest: UInt64?
        for key in Array(entries.keys) {
            refresh(key)
            guard let entry = entries[key] else { continue }
            let ms = entry.source.timeoutMilliseconds
            // Read after the source read its clock: the deadline is never
            // before the one it meant, so it is due when the timer fires.
            let now = Monotonic.now()
            let deadline: UInt64? = ms < 0 ? nil : now + UInt64(ms) * 1_000_000
            entries[key]!.deadline = deadline
            if let deadline, earliest == nil || deadline < earliest! { earliest = deadline }
        }
        guard earliest != armed, let timer else { return }
        armed = earliest
        reactor.arm(timer, at: earliest)
    }

    /// Watches the descriptor and events `key`'s source wants now: a new
    /// descriptor is a new watch, new events an update.
    private func refresh(_ key: UInt64) {
        guard let entry = entries[key] else { return }
        let fd = entry.source.fd
        let events = Reactor.Events(rawValue: entry.source.pollEvents)
        // Same fd, no watch: it was invalid (closed under us); not watched
        // again until the source gives another descriptor.
        guard fd != entry.fd || events != entry.events else { return }
        if fd != entry.fd {
            if let watch = entry.watch { reactor.unwatch(watch) }
            entries[key]!.watch = fd < 0 ? nil : reactor.watch(fd, events) { [weak self] heard in
                guard let self else { return }
                if heard.contains(.invalid) { self.entries[key]?.watch = nil }
                self.process(key)
            }
        } else if let watch = entry.watch {
            reactor.update(watch, events)
        }
        entries[key]!.fd = fd
        entries[key]!.events = events
    }
}

/// A weak reference a `@Sendable` timer handler can hold (the loop thread's
/// object it calls is not itself `Sendable`; it is called on that thread).
struct WeakBox<T: AnyObject>: @unchecked Sendable {
    weak var value: T?
    init(_ value: T) { self.value = value }
}
