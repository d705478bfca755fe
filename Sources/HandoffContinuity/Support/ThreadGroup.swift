// SPDX-License-Identifier: MIT OR Apache-2.0
import COpenSSL
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The detached threads one owner started (an engine's scheduler, fetches,
/// confirmations, streams and served connections), so that its stop can
/// wait until they are gone: not only until their work ended, but until
/// each has released OpenSSL's per-thread state (`releaseThreadState`). A
/// thread still unwinding when the host calls exit() leaves that state to
/// an exit handler racing it: a leak under valgrind, a crash before.
public final class ThreadGroup: Sendable {
    private struct State {
        /// Threads started and not yet gone.
        var count = 0
        /// Those that reached their body: the one calling `waitUntilGone`
        /// (a host freeing its application in a callback on it) does not
        /// wait for itself.
        var running: Set<pthread_t> = []
    }

    private let state = Awaitable(State())

    public init() {}

    /// Starts a detached thread in the group; false (and `body` never runs)
    /// when the system refuses one.
    @discardableResult
    public func start(named name: String? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
        state.update { $0.count += 1 }
        let started = startDetachedThread(named: name) { [state] in
            let me = pthread_self()
            state.update { _ = $0.running.insert(me) }
            body()
            releaseThreadState()
            state.update { s in
                s.running.remove(me)
                s.count -= 1
            }
        }
        if !started { state.update { $0.count -= 1 } }
        return started
    }

    /// Waits until every thread of the group but the caller is gone, or
    /// `seconds` pass; true when they are.
    @discardableResult
    public func waitUntilGone(seconds: Double) -> Bool {
        let me = pthread_self()
        return state.wait(until: { $0.count - ($0.running.contains(me) ? 1 : 0) <= 0 }, seconds: seconds) { _, gone in gone }
    }

    /// Threads started and not yet gone: for tests.
    var alive: Int { state.update { $0.count } }
}
