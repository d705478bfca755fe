import HandoffModel

/// The streams an engine carries, so that stopping it delivers what the
/// hosts already wrote: each stream's host input is shut (what is queued
/// still goes out, then END), and the engine waits a bounded time for them
/// before it closes every connection.
final class StreamRegistry: Sendable {
    private let pumps = Locked<[ObjectIdentifier: StreamPump]>([:])

    func add(_ pump: StreamPump) { pumps.withLock { $0[ObjectIdentifier(pump)] = pump } }
    func remove(_ pump: StreamPump) { _ = pumps.withLock { $0.removeValue(forKey: ObjectIdentifier(pump)) } }

    /// Sends what every host wrote, waiting at most `seconds` in all, then
    /// ends every stream.
    func drainAndEnd(within seconds: Double) {
        let all = pumps.withLock { Array($0.values) }
        let deadline = monotonicSeconds() + seconds
        all.forEach { $0.endHostInput() }
        for pump in all { pump.waitOutbound(seconds: max(0, deadline - monotonicSeconds())) }
        all.forEach { $0.end() }
    }
}
