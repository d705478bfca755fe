// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// The age limit on a timer (docs/history.md "Bounds and retention"): one
/// deadline, at the oldest entry's expiry, in the agent's loop (an
/// `AgentLoopSource` with no descriptor). When it passes, the writer
/// prunes; when what is stored or `HistoryDays` changed, the deadline is
/// looked up again (on the loop thread, one indexed read). An empty
/// history asks for no wake-up at all.
///
/// Threads: `changed` from any thread; the rest on the loop thread.
final class HistoryExpiryTimer: AgentLoopSource, @unchecked Sendable {
    /// A prune that took nothing away (a failing disk) is not tried again
    /// sooner than this.
    static let retrySeconds = 60.0

    private let dirty = Locked(true)
    private var nextExpiry: () -> Int64? = { nil }
    private var prune: () -> Void = {}
    private let wallMilliseconds: () -> Int64
    private let monotonic: () -> Double
    /// The deadline, in monotonic seconds; nil: none.
    private var deadline: Double?
    /// The expiry the last prune was for, and when it was asked.
    private var fired: (expiry: Int64, at: Double)?

    init(wallMilliseconds: @escaping () -> Int64 = { Int64(HandoffBase.wallMilliseconds()) },
         monotonic: @escaping () -> Double = { monotonicSeconds() }) {
        self.wallMilliseconds = wallMilliseconds
        self.monotonic = monotonic
    }

    /// What the timer asks (the oldest expiry, ms since the Unix epoch)
    /// and does (asks the writer to prune).
    func configure(nextExpiry: @escaping () -> Int64?, prune: @escaping () -> Void) {
        self.nextExpiry = nextExpiry
        self.prune = prune
        changed()
    }

    /// What is stored or the limit changed: look again before the next wait.
    func changed() { dirty.withLock { $0 = true } }

    private func refresh() {
        guard dirty.withLock({ d in defer { d = false }; return d }) else { return }
        guard let expiry = nextExpiry() else { deadline = nil; return }
        let now = monotonic()
        var at = now + Double(expiry - wallMilliseconds()) / 1000
        // The same expiry again: the last prune took nothing (a failing
        // disk, another process): not again at once.
        if let fired, expiry <= fired.expiry { at = max(at, fired.at + Self.retrySeconds) }
        deadline = at
    }

    // MARK: AgentLoopSource

    var fd: Int32 { -1 }
    var pollEvents: Int16 { 0 }

    var timeoutMilliseconds: Int32 {
        refresh()
        guard let deadline else { return -1 }
        return Int32(min(Double(Int32.max), max(0, (deadline - monotonic()) * 1000).rounded(.up)))
    }

    func process() {
        refresh()
        guard let deadline, deadline <= monotonic() else { return }
        self.deadline = nil
        if let expiry = nextExpiry() { fired = (expiry, monotonic()) }
        prune()
    }
}
