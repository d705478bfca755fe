// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// Counts background jobs still running and lets another thread wait, with
/// a deadline, until none is: how `ContinuityEngine.detach` lets the
/// confirmation of a continue reach the sender before the engine stops,
/// and how `handoff doctor` waits for its probes.
public final class InFlight: Sendable {
    private let count = Awaitable(0)

    public init() {}

    /// A job starts.
    public func begin() { count.update { $0 += 1 } }

    /// A job ended (call once per `begin`).
    public func end() { count.update { $0 -= 1 } }

    /// Waits until no job runs or `seconds` pass (`.infinity`: no limit);
    /// true when none runs.
    @discardableResult
    public func waitUntilIdle(seconds: Double) -> Bool {
        count.wait(until: { $0 <= 0 }, seconds: seconds) { _, idle in idle }
    }
}
