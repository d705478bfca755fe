// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import HandoffRuntime

/// One endpoint's place on an `EndpointHub`: the `ContinuityService` that
/// endpoint uses (an `Application` may take it directly; the agent gives one
/// to each connected app). Detaching it, or letting it go, unregisters the
/// endpoint and withdraws its advertisement. Any thread.
public final class HubPort: ContinuityService, @unchecked Sendable {
    // @unchecked: immutable; the hub keeps the state.
    public let hub: EndpointHub
    let id: HubTable.PortID

    init(hub: EndpointHub, id: HubTable.PortID) {
        self.hub = hub
        self.id = id
    }

    deinit {
        hub.unregister(id)
    }

    /// Registers `endpoint`, gated for its `audience`; it is told at once
    /// what is offered now that it may continue.
    public func attach(_ endpoint: any ContinuityEndpoint) {
        hub.register(id, endpoint)
    }

    /// This endpoint's current activity; the hub's service advertises the
    /// most recent one of all its endpoints (docs/agent.md §4).
    public func advertise(_ advertisement: Advertisement?) {
        hub.advertise(advertisement, from: id)
    }

    /// Fetches an activity this endpoint was told of (not for its web page
    /// only); else fails at once, 4609 (not offered, or no longer) or 4608
    /// (web page only).
    public func fetch(_ remote: RemoteActivity, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        switch hub.offered(remote, to: id) {
        case .success(let told): hub.service.fetch(told, completion: completion)
        case .failure(let error): completion(.failure(error))
        }
    }

    /// `fetch`, the payload as sent (for the history).
    public func fetchAsSent(_ remote: RemoteActivity, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        switch hub.offered(remote, to: id) {
        case .success(let told): hub.service.fetchAsSent(told, completion: completion)
        case .failure(let error): completion(.failure(error))
        }
    }

    /// Resolves a saved payload's documents; bytes come along only from a
    /// device still offering the activity to this endpoint.
    public func resolveDocuments(_ payload: [UInt8], from remote: RemoteActivity,
                                 completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        hub.service.resolveDocuments(payload, from: remote, completion: completion)
    }

    public func confirmContinued(_ remote: RemoteActivity) {
        if case .success(let told) = hub.offered(remote, to: id) { hub.service.confirmContinued(told) }
    }

    public func openStream(_ remote: RemoteActivity,
                           completion: @escaping @Sendable (Result<ContinuationStream, HandoffError>) -> Void) {
        switch hub.offered(remote, to: id) {
        case .success(let told): hub.service.openStream(told, completion: completion)
        case .failure(let error): completion(.failure(error))
        }
    }

    /// Unregisters the endpoint: its advertisement is withdrawn (the next
    /// most recent one is advertised), and it hears nothing more. Idempotent.
    public func detach() {
        hub.unregister(id)
    }
}
