// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import HandoffRuntime

/// One continuity service (an engine) serving many endpoints: the agent
/// runs one for every app of the user (docs/agent.md §2, §4). The hub is the
/// service's only endpoint, an observer; each app gets a `HubPort`, a
/// `ContinuityService` of its own, and:
///
/// - hears what other devices offer gated for it (`ActivityGate`), at once
///   on attaching for what is offered already;
/// - advertises through the service when its advertisement is the most
///   recent one (`HubTable.advertise`);
/// - is asked for the activities it advertised (FETCH, streams, CONFIRM are
///   routed by activity id);
/// - fetches, confirms and opens streams only for what it was told of.
///
/// Knows nothing of sockets. Every method may be called from any thread.
/// An endpoint's `remoteActivityChanged` must not block: changes reach the
/// endpoints in the order the hub applied them, one call at a time.
public final class EndpointHub: ContinuityEndpoint, @unchecked Sendable {
    // @unchecked: mutable state is in `state`; `service` is Sendable.
    public let service: any ContinuityService
    private let state = Locked(State())
    /// Held while choosing what the service advertises and telling it, so
    /// two endpoints advertising at once reach it in the order chosen.
    private let advertising = Locked(())

    private struct State: @unchecked Sendable {
        var table = HubTable()
        var endpoints: [HubTable.PortID: Weak] = [:]
        var nextPort: HubTable.PortID = 1
        /// Changes still to tell endpoints, in order; one thread at a time
        /// tells them (`draining`), never with the lock held.
        var pending: [(port: HubTable.PortID, change: RemoteActivityChange)] = []
        var draining = false
    }

    /// Held weakly, as the engine holds its application: the application
    /// owns its service (the port), which must not keep it alive.
    private struct Weak {
        weak var endpoint: (any ContinuityEndpoint)?
    }

    /// What the hub is, as an endpoint (its audience is `.observer`, so its
    /// manifest gates nothing).
    public static let identity = try! Manifest(bundleIdentifier: "org.libhandoff.agent", teamIdentifier: "HANDOFFAGENT")

    /// Attaches the hub to `service`, which it then owns: `stop` detaches it.
    public init(service: any ContinuityService) {
        self.service = service
        service.attach(self)
    }

    /// A new place for one endpoint; `attach` on it registers the endpoint.
    public func makePort() -> HubPort {
        let id = state.withLock { s in
            defer { s.nextPort += 1 }
            return s.nextPort
        }
        return HubPort(hub: self, id: id)
    }

    /// Registers `endpoint` on a port of its own and returns the port.
    public func register(_ endpoint: any ContinuityEndpoint) -> HubPort {
        let port = makePort()
        port.attach(endpoint)
        return port
    }

    /// Detaches the service (its last advertisement withdrawn). Ports
    /// still registered hear nothing more.
    public func stop() {
        service.detach()
    }

    /// What the service was last told to advertise (for diagnostics).
    public var advertised: Advertisement? { state.withLock { $0.table.advertised } }
    /// Endpoints registered now.
    public var endpointCount: Int { state.withLock { $0.table.ports.count } }
    /// What other devices offer now, ungated, oldest first.
    public var availableNow: [RemoteActivity] {
        state.withLock { $0.table.available.values.sorted { $0.firstSeen < $1.firstSeen } }
    }

    // MARK: Ports (HubPort forwards here)

    func register(_ port: HubTable.PortID, _ endpoint: any ContinuityEndpoint) {
        let audience = endpoint.audience
        tell { s in
            s.endpoints[port] = Weak(endpoint: endpoint)
            return s.table.register(port, audience: audience).map { (port, $0) }
        }
    }

    func unregister(_ port: HubTable.PortID) {
        forwardAdvertisement { s in
            s.endpoints[port] = nil
            s.pending.removeAll { $0.port == port }
            return s.table.unregister(port)
        }
    }

    func advertise(_ ad: Advertisement?, from port: HubTable.PortID) {
        forwardAdvertisement { $0.table.advertise(ad, from: port) }
    }

    /// The activity as `port` was told of it, or why it may not use it.
    func offered(_ remote: RemoteActivity, to port: HubTable.PortID) -> Result<RemoteActivity, HandoffError> {
        guard let told = state.withLock({ $0.table.reported(remote, to: port) }) else {
            return .failure(HandoffError(.connectionUnavailable, "the activity is not (or no longer) offered to this application"))
        }
        guard !told.isWebOnly else {
            return .failure(HandoffError(.handoffFailed, "this application is offered the activity for its web page only"))
        }
        return .success(told)
    }

    // MARK: ContinuityEndpoint (the service calls these)

    public var manifest: Manifest { Self.identity }
    public var audience: ActivityAudience { .observer }

    /// The engine never chooses: which app continues an activity chosen
    /// outside the apps is the agent's decision (AgentServer.choose), made
    /// once there.
    public func continueChosen(_ remote: RemoteActivity) {}

    public func remoteActivityChanged(_ change: RemoteActivityChange) {
        tell { $0.table.apply(change) }
    }

    public func provideActivity(_ activityID: ActivityID, reply: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Bool) {
        guard let endpoint = endpoint(advertising: activityID) else {
            _ = reply(.failure(Self.notOffered))
            return
        }
        endpoint.provideActivity(activityID, reply: reply)
    }

    public func activityWasContinued(_ activityID: ActivityID) {
        endpoint(advertising: activityID)?.activityWasContinued(activityID)
    }

    public func acceptStream(_ activityID: ActivityID, _ stream: ContinuationStream,
                             reply: @escaping @Sendable (Result<Void, HandoffError>) -> Bool) {
        guard let endpoint = endpoint(advertising: activityID) else {
            _ = reply(.failure(HandoffError(.handoffFailed, "this device did not send that activity (or no longer remembers it)")))
            return
        }
        endpoint.acceptStream(activityID, stream, reply: reply)
    }

    /// What an application answers for an activity it does not offer.
    static let notOffered = HandoffError(.handoffFailed, "the activity is no longer offered on the other device")

    // MARK: Inside

    private func endpoint(advertising activityID: ActivityID) -> (any ContinuityEndpoint)? {
        state.withLock { s in s.table.route(activityID).flatMap { s.endpoints[$0]?.endpoint } }
    }

    /// Applies `body` under the lock, then tells the endpoints what it
    /// returned, in order, unless another thread is telling them already
    /// (it then tells these too).
    private func tell(_ body: (inout State) -> [(port: HubTable.PortID, change: RemoteActivityChange)]) {
        let drain = state.withLock { s in
            s.pending += body(&s)
            guard !s.draining, !s.pending.isEmpty else { return false }
            s.draining = true
            return true
        }
        guard drain else { return }
        while true {
            let batch: [(any ContinuityEndpoint, RemoteActivityChange)]? = state.withLock { s in
                guard !s.pending.isEmpty else {
                    s.draining = false
                    return nil
                }
                defer { s.pending.removeAll() }
                return s.pending.compactMap { item in s.endpoints[item.port]?.endpoint.map { ($0, item.change) } }
            }
            guard let batch else { return }
            for (endpoint, change) in batch { endpoint.remoteActivityChanged(change) }
        }
    }

    /// Applies `body` under the lock and gives the service what it says to
    /// advertise, if anything changed; one at a time, in order.
    private func forwardAdvertisement(_ body: (inout State) -> Advertisement??) {
        advertising.withLock { _ in
            if case .some(let ad) = state.withLock(body) { service.advertise(ad) }
        }
    }
}
