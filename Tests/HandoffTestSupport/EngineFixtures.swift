// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
@testable import HandoffRuntime

/// Records an application's callbacks as short strings.
final class EngineDelegate: ApplicationDelegate, @unchecked Sendable {
    private let lock = Locked<[String]>([])
    var available: [RemoteActivity] = []
    var lastError: HandoffError?
    var restoredInfo: UserInfo?
    var restored: UserActivity?

    var events: [String] { lock.withLock { $0 } }
    func add(_ s: String) { lock.withLock { $0.append(s) } }

    func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool {
        add("willContinue"); return true
    }
    func application(_ application: Application, continue userActivity: UserActivity, restorationHandler: RestorationHandler) -> Bool {
        add("continue")
        restoredInfo = userActivity.userInfo
        restored = userActivity
        return true
    }
    func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String, error: HandoffError) {
        add("didFail:\(error.code.rawValue)")
        lastError = error
    }
    func application(_ application: Application, remoteActivityBecameAvailable remote: RemoteActivity) {
        add(remote.isWebOnly ? "available-web" : "available")
        available.append(remote)
    }
    func application(_ application: Application, remoteActivityWasWithdrawn remote: RemoteActivity) { add("withdrawn") }
    func application(_ application: Application, openWebpage url: URLReference, for remote: RemoteActivity) { add("web:\(url.absoluteString)") }
}

let testAccount = try! AccountKey(bytes: Array(repeating: 7, count: 32))

func manifest(team: String = "TEAM1", types: [String] = ["com.example.app.edit"]) throws -> Manifest {
    try Manifest(bundleIdentifier: "com.example.app", teamIdentifier: team, activityTypes: types)
}

/// An engine on loopback: beacons on an ephemeral port, unicast to `peers`,
/// channel on 127.0.0.1, short timeouts.
func loopbackEngine(account: AccountKey = testAccount, role: DeviceRole = .full, peers: [UInt16] = [],
                    fetchTimeout: Double = 1) throws -> ContinuityEngine {
    var config = ContinuityConfiguration(
        account: account, device: try DeviceIdentity.generate(name: "test \(role.name)", role: role),
        beacons: BeaconTransportConfig(port: 0, multicast: false, peers: peers.map { UDPAddress(host: "127.0.0.1", port: $0)! }))
    config.channelAddress = SocketAddress(host: "127.0.0.1", port: 0)
    config.fetchTimeout = fetchTimeout
    return try ContinuityEngine(configuration: config)
}

/// Dispatches `apps` until `done` holds or `seconds` pass.
@discardableResult
func pump(_ apps: [Application], seconds: Double = 5, until done: () -> Bool) throws -> Bool {
    let end = monotonicSeconds() + seconds
    while monotonicSeconds() < end {
        for app in apps { try app.dispatch() }
        if done() { return true }
        usleep(2000)
    }
    return done()
}
