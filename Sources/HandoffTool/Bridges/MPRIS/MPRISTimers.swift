// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// One-shot timers on the bridge's loop (monotonic seconds), at most 64:
/// each waits on a bounded thing (a launched player's name, a track's
/// metadata), so more would mean a bug; a 65th is dropped.
final class MPRISTimers {
    static let limit = 64
    private var entries: [(at: Double, run: () -> Void)] = []

    @discardableResult
    func after(_ seconds: Double, _ run: @escaping () -> Void) -> Bool {
        guard entries.count < Self.limit else { return false }
        entries.append((monotonicSeconds() + seconds, run))
        return true
    }

    /// Runs the timers that are due (those they add wait for the next turn).
    func fire() {
        let now = monotonicSeconds()
        let due = entries.filter { $0.at <= now }
        entries.removeAll { $0.at <= now }
        for entry in due { entry.run() }
    }

    /// Milliseconds to the next timer, -1 for none.
    var timeoutMilliseconds: Int32 {
        guard let next = entries.map(\.at).min() else { return -1 }
        return Int32(max(0, min((next - monotonicSeconds()) * 1000, 86_400_000)).rounded(.up))
    }
}
