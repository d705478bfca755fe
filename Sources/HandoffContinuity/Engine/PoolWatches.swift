// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase

/// The pooled connections the engine's scheduler watches for their peer's
/// close (POLLRDHUP, HUP, ERR: readable data alone, such as a TLS ticket,
/// does not wake it), kept in step with the pool before each wait. The
/// scheduler's thread only.
final class PoolWatches {
    private var watches: [Int32: Reactor.Watch] = [:]

    /// Watches the descriptors of `pooled` and forgets the others. A
    /// connection another thread closed while watched is reported
    /// `.invalid` and dropped by the reactor: forgotten here too, so its
    /// number is watched again when a later connection gets it.
    func sync(_ pooled: [Int32], on reactor: Reactor) {
        let wanted = Set(pooled)
        for (fd, watch) in watches where !wanted.contains(fd) {
            reactor.unwatch(watch)
            watches[fd] = nil
        }
        for fd in wanted where watches[fd] == nil {
            // The turn this wakes reaps it (the scheduler's pass, before the next wait).
            watches[fd] = reactor.watch(fd, .peerClosed) { [unowned self] events in
                if events.contains(.invalid) { self.watches[fd] = nil }
            }
        }
    }
}
