// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The tailnet (Tailscale, Headscale): the person's online devices as
/// tailscaled's LocalAPI lists them (`TailnetStatus`), each given beacons
/// on its Tailscale addresses at the discovery port. Tailscale carries no
/// multicast; it does the NAT traversal, and the TLS channel runs over it
/// unchanged (docs/PROTOCOL.md "Peer sources").
///
/// Asked every `pollInterval` seconds while the socket is there, and at
/// once when it appears (inotify on its directory, `AgentSocketWatch`:
/// no wake-up while tailscaled is absent and nothing changes there). A
/// missing or refusing socket, a stopped tailnet or an unusable answer is
/// a state (`state`), never an error loop: the next try is the next poll.
public final class TailnetSource: PeerSource {
    public static let defaultSocket = "/var/run/tailscale/tailscaled.sock"
    /// Overrides the socket path for every engine of the process (the
    /// agent, the tool, embedded apps); empty or `off` turns the source off.
    public static let environmentVariable = "HANDOFF_TAILNET_SOCKET"
    public static let pollInterval = 10.0
    /// When no directory on the way to the socket can be watched.
    public static let absentRetry = 60.0
    public static let requestTimeout = 3.0
    public static let statusPath = "/localapi/v0/status"

    /// The socket the environment names: `HANDOFF_TAILNET_SOCKET`, else the
    /// default; nil when it says off.
    public static func configuredSocket() -> String? {
        guard let raw = getenv(environmentVariable) else { return defaultSocket }
        let value = String(cString: raw)
        return value.isEmpty || value == "off" ? nil : value
    }

    public let socketPath: String
    public let port: UInt16
    /// Used on the `hoff-reach` thread only (`PeerSource`).
    nonisolated(unsafe) private let watch: AgentSocketWatch?
    private let current: Locked<(addresses: [UDPAddress], state: PeerSourceState)>

    /// - Parameter port: the discovery port beacons go to (this device's own).
    public init(socketPath: String, port: UInt16) {
        self.socketPath = socketPath
        self.port = port
        watch = try? AgentSocketWatch(socketPath: socketPath)
        current = Locked(([], PeerSourceState(kind: .tailnet, name: socketPath, condition: .pending)))
    }

    public var addresses: [UDPAddress] { current.withLock { $0.addresses } }
    public var state: PeerSourceState { current.withLock { $0.state } }
    public var descriptor: Int32 { watch?.fd ?? -1 }

    public func descriptorReadable() -> Bool { watch?.drain() ?? false }

    public func refresh(now: Double) -> Double? {
        let outcome = LocalAPIClient.get(Self.statusPath, socket: socketPath, timeout: Self.requestTimeout)
        let (addresses, state, next) = Self.interpret(outcome, socketPath: socketPath, port: port, now: now,
                                                      watched: watch != nil && AgentSocketWatch.isDirectory(AgentSocketWatch.parent(of: AgentSocketWatch.parent(of: socketPath))))
        current.withLock { $0 = (addresses, state) }
        return next
    }

    /// What an outcome means: the addresses, the state, and the next try.
    static func interpret(_ outcome: LocalAPIClient.Outcome, socketPath: String, port: UInt16, now: Double,
                          watched: Bool) -> ([UDPAddress], PeerSourceState, Double?) {
        func state(_ c: PeerSourceState.Condition, _ message: String?) -> PeerSourceState {
            PeerSourceState(kind: .tailnet, name: socketPath, condition: c, message: message)
        }
        switch outcome {
        case .absent:
            return ([], state(.absent, "no tailscaled (socket absent)"), watched ? nil : now + absentRetry)
        case .refused(let why):
            return ([], state(.unavailable, "tailscaled's socket refuses connections: \(why)"), now + pollInterval)
        case .failed(let why):
            return ([], state(.failed, why), now + pollInterval)
        case .response(let bytes):
            let status: TailnetStatus
            do {
                status = try TailnetStatus(response: bytes)
            } catch {
                return ([], state(.failed, error.message), now + pollInterval)
            }
            guard status.backendState == "Running" else {
                return ([], state(.unavailable, "the tailnet is not running (tailscaled says \(TailnetStatus.printable(String(status.backendState.prefix(40)))))"),
                        now + pollInterval)
            }
            var addresses: [UDPAddress] = []
            for peer in status.peers {
                for ip in peer.addresses {
                    if let a = UDPAddress(host: ip, port: port), !addresses.contains(a) { addresses.append(a) }
                }
            }
            var notes: [String] = []
            if status.offline > 0 { notes.append("\(status.offline) offline") }
            if status.otherUsers > 0 { notes.append("\(status.otherUsers) of other users") }
            if status.shared > 0 { notes.append("\(status.shared) shared in") }
            if status.otherTags > 0 { notes.append("\(status.otherTags) with other tags") }
            if status.overLimit > 0 { notes.append("\(status.overLimit) over the limit of \(TailnetStatus.maxPeers)") }
            let ok = PeerSourceState(kind: .tailnet, name: socketPath, condition: .ok,
                                     addresses: addresses.map(\.description), peers: status.peers.count,
                                     message: notes.isEmpty ? nil : "left out: " + notes.joined(separator: ", "))
            return (addresses, ok, now + pollInterval)
        }
    }
}
