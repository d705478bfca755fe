// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// The streams an engine carries, so that stopping it delivers what the
/// hosts already wrote: each stream's host input is shut (what is queued
/// still goes out, then END if the host had half-closed; otherwise the
/// stream is lost, see `StreamPump.endHostInput`), and the engine waits a
/// bounded time for them before it closes every connection.
final class StreamRegistry: Sendable {
    private let pumps = Locked<[ObjectIdentifier: StreamPump]>([:])
    /// Streams whose host may already hold its end while their pump is not
    /// registered yet. Stopping waits for them too: a host that writes and
    /// then frees its application at once must not lose what it wrote.
    private let starting = InFlight()
    /// Where the pumps' outbound threads run (the engine's threads).
    let threads: ThreadGroup

    init(threads: ThreadGroup) { self.threads = threads }

    /// The host may hold its end of a stream from now on. Exactly one
    /// `add` (`StreamPump.run`) or `abandon` follows.
    func willStart() { starting.begin() }

    /// The stream announced by `willStart` will have no pump.
    func abandon() { starting.end() }

    func add(_ pump: StreamPump) {
        pumps.withLock { $0[ObjectIdentifier(pump)] = pump }
        starting.end()
    }

    func remove(_ pump: StreamPump) { _ = pumps.withLock { $0.removeValue(forKey: ObjectIdentifier(pump)) } }

    /// Sends what every host wrote, waiting at most `seconds` in all, then
    /// ends every stream.
    func drainAndEnd(within seconds: Double) {
        let deadline = monotonicSeconds() + seconds
        starting.waitUntilIdle(seconds: seconds)
        let all = pumps.withLock { Array($0.values) }
        all.forEach { $0.endHostInput() }
        for pump in all { pump.waitOutbound(seconds: max(0, deadline - monotonicSeconds())) }
        all.forEach { $0.end() }
    }
}
