// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// Lets at most `limit` threads between `enter` and `leave` at once; the
/// others wait in `enter` (a counting semaphore).
final class CountingGate: Sendable {
    private let inside = Awaitable(0)
    private let limit: Int

    init(limit: Int) {
        precondition(limit >= 1)
        self.limit = limit
    }

    func enter() {
        inside.wait(until: { [limit] in $0 < limit }, seconds: .infinity) { count, _ in count += 1 }
    }

    func leave() {
        inside.update { $0 -= 1 }
    }
}
