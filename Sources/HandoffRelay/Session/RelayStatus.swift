// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
/// Where a device's relay connection stands (docs/agent.md §12
/// "Connection states"): what `handoff doctor` and STATUS `sources` show.
public struct RelayStatus: Sendable, Equatable {
    public enum Connection: String, Sendable {
        /// The first attempt has not ended yet.
        case connecting
        case connected
        /// The broker refused the credentials, or its certificate failed
        /// verification: retried only at the longest back-off.
        case refused
        /// Not reachable, no answer, or lost: retried with back-off.
        case unreachable
        case stopped
    }

    /// `host:port`.
    public var broker: String
    public var connection: Connection
    /// The last error's words (refused, unreachable), else nil.
    public var message: String?
    /// Seconds until the next attempt, while not connected.
    public var retryIn: Double?
    /// Devices whose beacons arrived through the broker in this connection.
    public var devices: Int
    /// Pipes open now.
    public var pipes: Int
    /// Messages dropped, by reason (`RelayDropReason.rawValue`), the
    /// broker client's own drops as `oversized`.
    public var drops: [String: Int]

    public init(broker: String, connection: Connection, message: String? = nil, retryIn: Double? = nil,
                devices: Int = 0, pipes: Int = 0, drops: [String: Int] = [:]) {
        self.broker = broker
        self.connection = connection
        self.message = message
        self.retryIn = retryIn
        self.devices = devices
        self.pipes = pipes
        self.drops = drops
    }

    /// As a peer source (docs/PROTOCOL.md "Peer sources").
    public var sourceState: PeerSourceState {
        let condition: PeerSourceState.Condition = switch connection {
        case .connected: .ok
        case .connecting: .pending
        case .refused: .unavailable
        case .unreachable: .failed
        case .stopped: .off
        }
        return PeerSourceState(kind: .relay, name: broker, condition: condition, peers: devices, message: message ?? dropsText)
    }

    /// "dropped: not authentic 2, unknown pipe 1", nil with no drops.
    public var dropsText: String? {
        let parts = drops.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        return parts.isEmpty ? nil : "dropped: " + parts.joined(separator: ", ")
    }
}

/// The wait before the next connection attempt (docs/agent.md §12
/// "Reconnecting"): 1 s, doubling up to `cap` (60 s) while the broker stays
/// unreachable; refused credentials or an untrusted certificate wait the
/// `longest` (5 min) at once (they will not change by themselves; `handoff
/// relay set` and an agent restart try again). A healthy connection
/// (`RelayLoop.healthy`) starts the count again: the next drop waits 1 s.
struct RelayBackoff {
    static let first = 1.0
    /// The longest wait for an unreachable or lost broker.
    static let cap = 60.0
    /// The wait after a refusal.
    static let longest = 300.0
    private(set) var failures = 0

    mutating func failed(refused: Bool) -> Double {
        failures += 1
        if refused { return Self.longest }
        return min(Self.cap, Self.first * Double(1 << min(failures - 1, 20)))
    }

    mutating func succeeded() { failures = 0 }
}
