// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase

/// One-shot timers on the bridge's loop (its reactor's), at most 64 at
/// once: each waits on a bounded thing (a launched player's name, a
/// track's metadata), so more would mean a bug; a 65th is dropped.
/// Main thread (the reactor's loop thread).
final class MPRISTimers {
    static let limit = 64
    private let reactor: Reactor
    private var pending = 0

    init(reactor: Reactor) {
        self.reactor = reactor
    }

    /// Runs `run` on the loop `seconds` from now; false (dropped) when
    /// `limit` timers are pending.
    @discardableResult
    func after(_ seconds: Double, _ run: @escaping () -> Void) -> Bool {
        guard pending < Self.limit else { return false }
        pending += 1
        // The handler runs on this thread (the loop's), where `run` was made.
        nonisolated(unsafe) let me = self
        nonisolated(unsafe) let run = run
        let box = TimerBox()
        let timer = reactor.timer {
            me.pending -= 1
            if let timer = box.timer { me.reactor.release(timer) }
            run()
        }
        box.timer = timer
        reactor.arm(timer, after: seconds)
        return true
    }
}

/// The timer a one-shot handler releases once it ran.
private final class TimerBox: @unchecked Sendable {
    // @unchecked: set before the timer is armed, read by its handler.
    var timer: Reactor.Timer?
}
