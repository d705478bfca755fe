// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
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
/// The thread sleeps until the earliest source's next refresh or an event
/// of one of their descriptors (docs/agent.md §8): with no name configured
/// and no tailscaled, no wake-up at all; `interfacesChanged()` brings the
/// refresh of the sources that follow the network (names) forward. It is
/// started only when a source needs refreshing, is detached, and ends at
/// its next wake-up after `stop()` (a name still resolving is not waited
/// for).
public final class PeerSources: Sendable {
    public static let maxAddresses = 256

    public let sources: [any PeerSource]
    private let changed: @Sendable (_ addresses: [UDPAddress], _ added: Bool) -> Void
    private let state = Locked(State())
    private let wakeRead: Int32
    private let wakeWrite: Int32

    private struct State {
        var published: [UDPAddress] = []
        var stopping = false
        var threadOwnsPipe = false
        var closed = false
        /// Told by `interfacesChanged`, not yet seen by the thread.
        var networkChanged = false
    }

    /// - Parameter changed: called on the `hoff-reach` thread with the new
    ///   union, and whether an address is new in it (time to solicit).
    public init(_ sources: [any PeerSource],
                changed: @escaping @Sendable (_ addresses: [UDPAddress], _ added: Bool) -> Void) {
        self.sources = sources
        self.changed = changed
        var fds: [Int32] = [-1, -1]
        if clinux_pipe2(&fds, O_CLOEXEC | O_NONBLOCK) != 0 { fds = [-1, -1] }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        state.withLock { $0.published = Self.union(sources) }
    }

    deinit { closePipe() }

    /// The union of the sources' addresses now.
    public var addresses: [UDPAddress] { state.withLock { $0.published } }

    /// Every source's state, in order.
    public var states: [PeerSourceState] { sources.map(\.state) }

    /// Starts the thread when a source needs it; false when one is needed
    /// and the system refused it (the static addresses still apply).
    @discardableResult
    public func start() -> Bool {
        guard sources.contains(where: \.needsRefresh), wakeRead >= 0 else { return true }
        let started = state.withLock { s -> Bool in
            guard !s.stopping else { return false }
            s.threadOwnsPipe = true
            return true
        }
        guard started else { return true }
        if !startDetachedThread(named: "hoff-reach", { [self] in self.run() }) {
            state.withLock { $0.threadOwnsPipe = false }
            return false
        }
        return true
    }

    /// Asks the thread to end; returns at once.
    public func stop() {
        let closeNow = state.withLock { s -> Bool in
            s.stopping = true
            // Written with the lock held: the thread closes the pipe with it held too.
            if s.threadOwnsPipe && !s.closed {
                var byte: UInt8 = 1
                _ = write(wakeWrite, &byte, 1)
            }
            return !s.threadOwnsPipe
        }
        if closeNow { closePipe() }
    }

    /// The network's interfaces changed (the engine's beacon transport
    /// says so, from netlink): each source that follows the network
    /// (`refreshAfterNetworkChange`) is refreshed that long from now, or
    /// sooner if it was due sooner. Returns at once; any thread. Changes
    /// in a burst make one refresh per source, and at most one per
    /// `refreshAfterNetworkChange` for a network that keeps changing.
    public func interfacesChanged() {
        state.withLock { s in
            // No thread (nothing to refresh, or not started yet: it refreshes everything first).
            guard s.threadOwnsPipe, !s.stopping, !s.closed else { return }
            s.networkChanged = true
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)  // a full pipe is a pending wake-up already
        }
    }

    private func closePipe() {
        state.withLock { s in
            guard !s.closed else { return }
            s.closed = true
            if wakeRead >= 0 { close(wakeRead) }
            if wakeWrite >= 0 { close(wakeWrite) }
        }
    }

    private var stopping: Bool { state.withLock { $0.stopping } }

    private func run() {
        defer { closePipe() }
        var due: [Double?] = sources.map { $0.needsRefresh ? 0 : nil }
        let refreshOrder = sources.indices.filter { sources[$0] is TailnetSource } + sources.indices.filter { !(sources[$0] is TailnetSource) }
        while !stopping {
            let now = monotonicSeconds()
            // The tailnet first: a name whose resolver hangs does not hold it up.
            for i in refreshOrder {
                guard let d = due[i], d <= now else { continue }
                due[i] = sources[i].refresh(now: now)
                if stopping { return }
            }
            publish()
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            var owners: [Int] = []
            for (i, source) in sources.enumerated() where source.descriptor >= 0 {
                fds.append(pollfd(fd: source.descriptor, events: Int16(POLLIN), revents: 0))
                owners.append(i)
            }
            var timeout: Int32 = -1
            if let next = due.compactMap({ $0 }).min() {
                timeout = Int32(min(3_600_000, max(0, (next - monotonicSeconds()) * 1000).rounded(.up)))
            }
            let r = poll(&fds, nfds_t(fds.count), timeout)
            if r < 0 && errno != EINTR { return }
            guard r > 0 else { continue }
            if fds[0].revents != 0 {
                if stopping { return }
                networkChanged(&due)
            }
            for (k, i) in owners.enumerated() where fds[k + 1].revents != 0 {
                if sources[i].descriptorReadable() { due[i] = 0 }
            }
        }
    }

    /// Drains the wake-up pipe and moves the due times of the sources that
    /// follow the network (`interfacesChanged`).
    private func networkChanged(_ due: inout [Double?]) {
        let changed = state.withLock { s -> Bool in
            var bytes = [UInt8](repeating: 0, count: 64)
            while read(wakeRead, &bytes, bytes.count) > 0 {}
            defer { s.networkChanged = false }
            return s.networkChanged
        }
        guard changed else { return }
        let now = monotonicSeconds()
        for (i, source) in sources.enumerated() {
            guard let delay = source.refreshAfterNetworkChange else { continue }
            due[i] = min(due[i] ?? .infinity, now + delay)
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
