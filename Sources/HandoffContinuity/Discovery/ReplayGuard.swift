// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// Lets each authentic beacon through once: rejects stale or future
/// timestamps and replays (a sequence not above the last one accepted from
/// that device).
///
/// Remembers at most `maxDevices` devices; beyond that it forgets the one
/// heard from least recently. A forgotten device's next beacon is accepted
/// on its timestamp alone, so a beacon of its captured within the window
/// could be replayed once then: harmless (adverts are idempotent) and only
/// possible with more live devices than `maxDevices` on the link.
///
/// The same beacon heard again (over the other address family of a
/// dual-stack link, or from a unicast answer and the multicast copy) is a
/// *duplicate*, not a replay: the guard remembers the last
/// `recentSequences` sequences it accepted from each device and says which
/// one it was (`check`).
///
/// Senders must keep `sequence` increasing across restarts (seed it from
/// the wall clock, e.g. milliseconds × 1000), or their beacons are refused
/// until it passes the last one a receiver saw.
public final class ReplayGuard: Sendable {
    /// What the guard makes of a beacon.
    public enum Verdict: Sendable, Equatable {
        /// Fresh: let it through.
        case accepted
        /// A copy of a beacon accepted recently: already handled.
        case duplicate
        /// An older sequence not among those recently accepted.
        case replay
        /// The timestamp is outside the window.
        case stale
    }

    /// Sequences remembered per device to tell duplicates from replays.
    public static let recentSequences = 8

    private struct Entry {
        var sequence: UInt64
        var recent: [UInt64]
        var lastAccepted: UInt64   // a tick of `clock`, for least-recently-used eviction
    }

    private struct State {
        var devices: [[UInt8]: Entry] = [:]
        var clock: UInt64 = 0
    }

    /// Allowed clock difference, in seconds, either way.
    public let window: Double
    public let maxDevices: Int
    private let windowMilliseconds: UInt64
    private let state = Locked(State())

    /// - Parameters:
    ///   - window: seconds a beacon's timestamp may differ from now, either
    ///     way (clocks on a link agree to well within that with NTP).
    ///   - maxDevices: devices remembered (at least 1).
    public init(window: Double = 30, maxDevices: Int = 1024) {
        let window = window.isFinite ? max(0, window) : 30
        self.window = window
        self.maxDevices = max(1, maxDevices)
        windowMilliseconds = UInt64(min(window * 1000, 1e15))
    }

    /// True once per fresh beacon: |timestamp - now| <= window, and sequence
    /// greater than the last accepted for that device. A rejected beacon
    /// changes nothing.
    public func accept(_ beacon: Beacon, nowMilliseconds: UInt64) -> Bool {
        check(beacon, nowMilliseconds: nowMilliseconds) == .accepted
    }

    /// `accept`, saying why a beacon is not let through: a duplicate of one
    /// of the last `recentSequences` accepted from that device, a replay,
    /// or stale. Only an accepted beacon changes state.
    public func check(_ beacon: Beacon, nowMilliseconds: UInt64) -> Verdict {
        let t = beacon.timestamp
        let skew = t > nowMilliseconds ? t - nowMilliseconds : nowMilliseconds - t
        guard skew <= windowMilliseconds else { return .stale }
        return state.withLock { s in
            s.clock += 1
            if var entry = s.devices[beacon.deviceID] {
                guard beacon.sequence > entry.sequence else {
                    return entry.recent.contains(beacon.sequence) ? .duplicate : .replay
                }
                entry.sequence = beacon.sequence
                entry.recent.append(beacon.sequence)
                if entry.recent.count > Self.recentSequences { entry.recent.removeFirst() }
                entry.lastAccepted = s.clock
                s.devices[beacon.deviceID] = entry
                return .accepted
            }
            if s.devices.count >= maxDevices,
               let oldest = s.devices.min(by: { $0.value.lastAccepted < $1.value.lastAccepted })?.key {
                s.devices[oldest] = nil
            }
            s.devices[beacon.deviceID] = Entry(sequence: beacon.sequence, recent: [beacon.sequence], lastAccepted: s.clock)
            return .accepted
        }
    }

    /// Devices currently remembered.
    public var deviceCount: Int { state.withLock { $0.devices.count } }

    /// Forgets every device (e.g. when the account key changes).
    public func reset() { state.withLock { $0 = State() } }
}
