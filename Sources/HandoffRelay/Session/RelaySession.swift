// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// A device's presence on the relay's broker (PROTOCOL.md §11,
/// docs/agent.md §12), the engine's `PeerPath` of kind `.relay`: one
/// thread, `hoff-relay`, keeps the connection (back-off, Will, subscriptions), publishes the engine's beacons on the
/// device topic, hands the account's beacons and gone messages to the
/// engine, and carries the channel's TLS over pipes: `openPipe` gives the
/// engine's client a stream socket to a device, and pipes other devices
/// open are handed to the engine's channel server (`PeerPathEvents.accepted`).
///
/// The broker client comes from `connect` (`MQTTConnection`, made by the
/// agent's `AgentRelay`; tests give their own). Threads: every method from
/// any thread; the events run on `hoff-relay`.
public final class RelaySession: @unchecked Sendable {
    // @unchecked: mutable state is in `shared` (a Locked); the loop's own
    // state belongs to its thread.

    /// Makes an unconnected broker client with this Will (a new one for
    /// every connection: the Will is sealed for it).
    public typealias Connect = @Sendable (_ will: RelayWill) throws(HandoffError) -> any RelayBroker

    /// Seconds a connection attempt may take.
    static let connectTimeout = 10.0
    /// Seconds a connection must stay connected and subscribed to count as
    /// healthy: a drop after that reconnects at the back-off's first step
    /// (docs/agent.md §12 "Reconnecting").
    public static let defaultHealthyAfter = 10.0
    /// Beacons waiting for the thread at most (the oldest go first).
    static let maxQueuedBeacons = 32
    /// Seconds `stop` waits for the last beacon and the DISCONNECT to go out.
    static let stopWait = 2.0

    let topics: RelayTopics
    let ownTag: String
    let account: AccountKey
    let deviceID: [UInt8]
    let brokerName: String
    let connect: Connect
    let limits: RelayPipeTable.Limits
    let healthyAfter: Double
    /// hoff-relay's wait: other threads' requests wake it, `stop` ends it.
    let reactor: Reactor
    let finished: WakePipe
    let shared: Locked<Shared>

    struct Shared {
        var hooks: PeerPathEvents?
        var beacons: [[UInt8]] = []
        var opens: [(peer: String, bridge: RelayStreamBridge)] = []
        var authenticated: [RelayPipeTable.Key] = []
        var departed: [String] = []
        var status: RelayStatus
        var started = false
        var stopping = false
        var statusChanged: (@Sendable (RelayStatus) -> Void)?
    }

    /// - Parameters:
    ///   - brokerName: `host:port`, for messages and status.
    ///   - healthyAfter: `defaultHealthyAfter`, or shorter for tests.
    public init(account: AccountKey, deviceID: [UInt8], brokerName: String,
                limits: RelayPipeTable.Limits = RelayPipeTable.Limits(), healthyAfter: Double = defaultHealthyAfter,
                connect: @escaping Connect) throws(HandoffError) {
        self.account = account
        self.healthyAfter = healthyAfter
        self.deviceID = deviceID
        self.brokerName = brokerName
        self.connect = connect
        self.limits = limits
        topics = RelayTopics(accountKey: account)
        ownTag = topics.deviceTag(deviceID)
        do { reactor = try Reactor() } catch { throw HandoffError(error, doing: "create the relay's event loop") }
        finished = try WakePipe.make()
        shared = Locked(Shared(status: RelayStatus(broker: brokerName, connection: .connecting)))
    }

    /// Starts the thread; false when the system refused it.
    @discardableResult
    public func start(_ hooks: PeerPathEvents) -> Bool {
        let first = shared.withLock { s -> Bool in
            guard !s.started, !s.stopping else { return false }
            s.started = true
            s.hooks = hooks
            return true
        }
        guard first else { return true }
        let loop = RelayLoop(session: self)
        guard startDetachedThread(named: "hoff-relay", { loop.run() }) else {
            shared.withLock { $0.started = false }
            return false
        }
        return true
    }

    /// Where the connection stands, with the drop counters.
    var status: RelayStatus { shared.withLock { $0.status } }

    /// Called on `hoff-relay` when the connection's state or its message
    /// changes (not for counters): the agent logs it. Set before `start`.
    public func onStatusChange(_ handler: @escaping @Sendable (RelayStatus) -> Void) {
        shared.withLock { $0.statusChanged = handler }
    }

    /// Publishes a sealed beacon on this device's topic (retained), soon,
    /// on the relay's thread; dropped while not connected (the next
    /// connection announces afresh).
    func publishBeacon(_ packet: [UInt8]) {
        let queued = shared.withLock { s -> Bool in
            guard s.status.connection == .connected, !s.stopping else { return false }
            if s.beacons.count >= Self.maxQueuedBeacons { s.beacons.removeFirst() }
            s.beacons.append(packet)
            return true
        }
        if queued { reactor.wake() }
    }

    /// A stream socket to the device of `deviceTag` through a new pipe (the
    /// channel's client end: run `ChannelConnection.connect(overStream:)`
    /// on it). Owned by the caller. Throws `.connectionUnavailable` while
    /// not connected to the broker; a pipe the limits refuse ends at once
    /// (the handshake over it fails).
    func openPipe(toDeviceTag deviceTag: String) throws(HandoffError) -> Int32 {
        guard deviceTag != ownTag else { throw HandoffError(.invalidArgument, "a relay pipe goes to another device, not this one") }
        let (channelFD, bridge) = try RelayStreamBridge.pair()
        let error: HandoffError? = shared.withLock { s in
            guard s.status.connection == .connected, !s.stopping else {
                return HandoffError(.connectionUnavailable, "the relay broker \(brokerName) is not connected"
                                    + (s.status.message.map { " (\($0))" } ?? ""))
            }
            s.opens.append((deviceTag, bridge))
            return nil
        }
        if let error {
            bridge.close()
            close(channelFD)
            throw error
        }
        reactor.wake()
        return channelFD
    }

    /// The device of `deviceID` went away (its leaving presence): its
    /// pipes are reset, so they stop holding its share of the limits.
    func deviceLeft(_ deviceID: [UInt8]) {
        guard deviceID.count == 16 else { return }
        let tag = topics.deviceTag(deviceID)
        shared.withLock { $0.departed.append(tag) }
        reactor.wake()
    }

    /// The channel proved the account key over an accepted pipe.
    func authenticated(_ key: RelayPipeTable.Key) {
        shared.withLock { $0.authenticated.append(key) }
        reactor.wake()
    }

    /// Publishes what is queued (the engine's leaving presence), disconnects
    /// cleanly (the broker drops the Will) and ends the thread, waiting at
    /// most `stopWait` for it. Idempotent.
    public func stop() {
        let running = shared.withLock { s -> Bool in
            guard !s.stopping else { return false }
            s.stopping = true
            s.hooks = nil
            return s.started
        }
        guard running else { return }
        reactor.stop()
        _ = wait(finished.fd, for: Int16(POLLIN), until: Deadline(after: Self.stopWait))  // the thread's end, or the deadline
    }

    var hooks: PeerPathEvents? { shared.withLock { $0.hooks } }
}

extension RelaySession: PeerPath {
    public var kind: PeerPathKind { .relay }
    public var state: PeerSourceState { status.sourceState }
    public func publish(beacon packet: [UInt8]) { publishBeacon(packet) }
    public func peerLeft(_ deviceID: [UInt8]) { deviceLeft(deviceID) }

    /// A pipe to the device of `address.tag` (`openPipe`).
    public func dial(_ address: PeerPathAddress) throws(HandoffError) -> Int32 {
        guard address.kind == .relay, RelayTopics.isTag(Substring(address.tag)) else {
            throw HandoffError(.invalidArgument, "\(address) is not a device on the relay")
        }
        return try openPipe(toDeviceTag: address.tag)
    }
}
