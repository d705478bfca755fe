// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// An engine's peer sources, and the one thread (`hoff-reach`) that
/// refreshes those that need time: the unicast targets of the beacon
/// sender are the union of their addresses (each once, in source order, at
/// most `maxAddresses`), handed to `changed` whenever it changes.
///
/// The thread runs a reactor (docs/agent.md §8): a timer per source armed
/// for its next refresh, the sources' descriptors watched; with no name
/// configured and no tailscaled, no wake-up at all. `interfacesChanged()`
/// brings the refresh of the sources that follow the network (names)
/// forward. It is started only when a source needs refreshing, is
/// detached, and ends at its next wake-up after `stop()` (a name still
/// resolving is not waited for).
public final class PeerSources: Sendable {
    public static let maxAddresses = 256

    public let sources: [any PeerSource]
    private let changed: @Sendable (_ addresses: [UDPAddress], _ added: Bool) -> Void
    private let state = Locked(State())

    private struct State {
        var published: [UDPAddress] = []
        /// The thread's wait: made when a source needs refreshing, dropped
        /// (its descriptors closed) when the thread ends or never starts.
        var reactor: Reactor?
        var started = false
        var stopping = false
        /// Told by `interfacesChanged`, not yet seen by the thread.
        var networkChanged = false
        /// Each source's next refresh (monotonic seconds), nil for "on an
        /// event of its descriptor only": what its timer is armed for.
        var due: [Double?] = []
    }

    /// - Parameter changed: called on the `hoff-reach` thread with the new
    ///   union, and whether an address is new in it (time to solicit).
    public init(_ sources: [any PeerSource],
                changed: @escaping @Sendable (_ addresses: [UDPAddress], _ added: Bool) -> Void) {
        self.sources = sources
        self.changed = changed
        let reactor = sources.contains(where: \.needsRefresh) ? try? Reactor() : nil
        state.withLock { s in
            s.published = Self.union(sources)
            s.reactor = reactor
        }
    }

    /// The union of the sources' addresses now.
    public var addresses: [UDPAddress] { state.withLock { $0.published } }

    /// Every source's state, in order.
    public var states: [PeerSourceState] { sources.map(\.state) }

    /// Starts the thread when a source needs it; false when one is needed
    /// and the system refused it (the static addresses still apply).
    @discardableResult
    public func start() -> Bool {
        let reactor = state.withLock { s -> Reactor? in
            guard !s.stopping, !s.started, let reactor = s.reactor else { return nil }
            s.started = true
            return reactor
        }
        guard let reactor else { return true }
        if !startDetachedThread(named: "hoff-reach", { [self] in self.run(reactor) }) {
            state.withLock { $0.started = false }
            return false
        }
        return true
    }

    /// Asks the thread to end; returns at once.
    public func stop() {
        let reactor = state.withLock { s -> Reactor? in
            s.stopping = true
            defer { if !s.started { s.reactor = nil } }
            return s.reactor
        }
        reactor?.stop()
    }

    /// The network's interfaces changed (the engine's beacon transport
    /// says so, from netlink): each source that follows the network
    /// (`refreshAfterNetworkChange`) is refreshed that long from now, or
    /// sooner if it was due sooner. Returns at once; any thread. Changes
    /// in a burst make one refresh per source, and at most one per
    /// `refreshAfterNetworkChange` for a network that keeps changing.
    public func interfacesChanged() {
        let reactor = state.withLock { s -> Reactor? in
            // No thread (nothing to refresh, or not started yet: it refreshes everything first).
            guard s.started, !s.stopping, let reactor = s.reactor else { return nil }
            s.networkChanged = true
            return reactor
        }
        reactor?.wake()  // wake-ups not yet seen are one
    }

    /// The thread's reactor's counts (tests: an idle thread makes no turn);
    /// nil without a thread.
    var loopCounts: Reactor.Counts? { state.withLock { $0.reactor }?.counts }

    private var stopping: Bool { state.withLock { $0.stopping } }

    private func run(_ reactor: Reactor) {
        defer { state.withLock { $0.reactor = nil } }
        state.withLock { s in s.due = sources.map { $0.needsRefresh ? 0 : nil } }
        // Timers due together fire in the order they were made: the tailnet
        // first, so a name whose resolver hangs does not hold it up.
        let order = sources.indices.filter { sources[$0] is TailnetSource } + sources.indices.filter { !(sources[$0] is TailnetSource) }
        let timers = Locked([Reactor.Timer?](repeating: nil, count: sources.count))
        // Its handlers hold it unowned: they run only inside `run`, and a
        // reactor holding itself would outlive the thread, descriptors and all.
        for i in order {
            let timer = reactor.timer { [self, unowned reactor] in
                guard !stopping, let timer = timers.withLock({ $0[i] }) else { return }
                schedule(i, at: sources[i].refresh(now: monotonicSeconds()), timer, on: reactor)
            }
            timers.withLock { $0[i] = timer }
            if sources[i].needsRefresh { reactor.arm(timer, at: 0) }
        }
        for (i, source) in sources.enumerated() where source.descriptor >= 0 {
            _ = reactor.watch(source.descriptor, .readable) { [self, unowned reactor] _ in
                if sources[i].descriptorReadable(), let timer = timers.withLock({ $0[i] }) {
                    schedule(i, at: 0, timer, on: reactor)
                }
            }
        }
        reactor.beforeEachWait { [self, unowned reactor] in
            followNetworkChange(timers.withLock { $0 }, on: reactor)
            publish()
        }
        reactor.run()
    }

    /// Arms source `i`'s refresh for `next` (nil: on its descriptor's event only).
    private func schedule(_ i: Int, at next: Double?, _ timer: Reactor.Timer, on reactor: Reactor) {
        state.withLock { $0.due[i] = next }
        reactor.arm(timer, atSeconds: next)
    }

    /// Moves the refresh of the sources that follow the network forward
    /// when `interfacesChanged` said so.
    private func followNetworkChange(_ timers: [Reactor.Timer?], on reactor: Reactor) {
        let (changed, due) = state.withLock { s in
            defer { s.networkChanged = false }
            return (s.networkChanged, s.due)
        }
        guard changed else { return }
        let now = monotonicSeconds()
        for (i, source) in sources.enumerated() {
            guard let delay = source.refreshAfterNetworkChange, let timer = timers[i] else { continue }
            schedule(i, at: min(due[i] ?? .infinity, now + delay), timer, on: reactor)
        }
    }

    /// Hands the union to `changed` when it differs from the last one.
    private func publish() {
        let union = Self.union(sources)
        let added: Bool? = state.withLock { s in
            guard union != s.published else { return nil }
            let before = Set(s.published)
            s.published = union
            return union.contains { !before.contains($0) }
        }
        if let added { changed(union, added) }
    }

    static func union(_ sources: [any PeerSource]) -> [UDPAddress] {
        var seen = Set<UDPAddress>()
        var union: [UDPAddress] = []
        for source in sources {
            for a in source.addresses where union.count < maxAddresses && seen.insert(a).inserted {
                union.append(a)
            }
        }
        return union
    }
}
