// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffBase
import HandoffModel
@testable import HandoffRuntime

/// TEST AID ONLY: continuity between applications in one process, so the
/// runtime's rules can be tested without sockets. The product path is the
/// network layer; nothing outside Tests/ may use this.
final class LoopbackNetwork: Sendable {
    private let services = Locked<[String: LoopbackContinuity]>([:])

    func service(_ deviceID: String) -> LoopbackContinuity {
        let s = LoopbackContinuity(deviceID: deviceID, network: self)
        services.withLock { $0[deviceID] = s }
        return s
    }

    func lookup(_ deviceID: String) -> LoopbackContinuity? {
        services.withLock { $0[deviceID] }
    }
}

final class LoopbackContinuity: ContinuityService, @unchecked Sendable {
    let deviceID: String
    private weak var network: LoopbackNetwork?
    private let state = Locked(State())

    private struct State: @unchecked Sendable {
        weak var endpoint: (any ContinuityEndpoint)?
        var advertised: Advertisement?
        var history: [Advertisement?] = []
        var detached = false
        /// When set, fetches from this device fail with it.
        var fetchFailure: HandoffError?
    }

    init(deviceID: String, network: LoopbackNetwork) {
        self.deviceID = deviceID
        self.network = network
    }

    func attach(_ endpoint: any ContinuityEndpoint) { state.withLock { $0.endpoint = endpoint } }
    func detach() { state.withLock { $0.detached = true; $0.advertised = nil } }

    func advertise(_ advertisement: Advertisement?) {
        state.withLock { s in
            s.advertised = advertisement
            s.history.append(advertisement)
        }
    }

    var advertised: Advertisement? { state.withLock { $0.advertised } }
    var history: [Advertisement?] { state.withLock { $0.history } }

    func failFetches(with error: HandoffError?) { state.withLock { $0.fetchFailure = error } }

    /// What another device would see offered by this one.
    var offered: RemoteActivity? {
        guard let ad = advertised else { return nil }
        return RemoteActivity(deviceID: deviceID, deviceName: "device \(deviceID)", activityID: ad.activityID,
                              activityType: ad.activityType, title: ad.title, webpageURL: ad.webpageURL,
                              supportsContinuationStreams: ad.supportsContinuationStreams)
    }

    func fetch(_ remote: RemoteActivity, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        guard let sender = network?.lookup(remote.deviceID) else {
            completion(.failure(HandoffError(.connectionUnavailable, "no such device")))
            return
        }
        let (endpoint, failure) = sender.state.withLock { ($0.endpoint, $0.fetchFailure) }
        if let failure { completion(.failure(failure)); return }
        guard let endpoint else {
            completion(.failure(HandoffError(.connectionUnavailable, "the device is gone")))
            return
        }
        endpoint.provideActivity(remote.activityID) { completion($0); return true }
    }

    func confirmContinued(_ remote: RemoteActivity) {
        network?.lookup(remote.deviceID)?.state.withLock { $0.endpoint }?.activityWasContinued(remote.activityID)
    }
}
