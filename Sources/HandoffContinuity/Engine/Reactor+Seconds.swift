// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase

extension Reactor {
    /// Arms `timer` for `deadline` in CLOCK_MONOTONIC seconds (as
    /// `monotonicSeconds()` gives them), rounded up so that it never fires
    /// before the time it stands for; nil disarms. Any thread, no wake-up.
    func arm(_ timer: Timer, atSeconds deadline: Double?) {
        arm(timer, at: deadline.map { UInt64(max(0, $0 * 1e9).rounded(.up)) })
    }
}
