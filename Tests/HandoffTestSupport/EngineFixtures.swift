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
public final class EngineDelegate: ApplicationDelegate, @unchecked Sendable {
    private let lock = Locked<[String]>([])
    public var available: [RemoteActivity] = []
    public var lastError: HandoffError?
    public var restoredInfo: UserInfo?
    public var restored: UserActivity?

    public init() {}

    public var events: [String] { lock.withLock { $0 } }
    public func add(_ s: String) { lock.withLock { $0.append(s) } }

    public func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool {
        add("willContinue"); return true
    }
    public func application(_ application: Application, continue userActivity: UserActivity, restorationHandler: RestorationHandler) -> Bool {
        add("continue")
        restoredInfo = userActivity.userInfo
        restored = userActivity
        return true
    }
    public func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String, error: HandoffError) {
        add("didFail:\(error.code.rawValue)")
        lastError = error
    }
    public func application(_ application: Application, remoteActivityBecameAvailable remote: RemoteActivity) {
        add(remote.isWebOnly ? "available-web" : "available")
        available.append(remote)
    }
    public func application(_ application: Application, remoteActivityWasWithdrawn remote: RemoteActivity) { add("withdrawn") }
    public func application(_ application: Application, openWebpage url: URLReference, for remote: RemoteActivity) { add("web:\(url.absoluteString)") }
}

public let testAccount = try! AccountKey(bytes: Array(repeating: 7, count: 32))

public func manifest(team: String = "TEAM1", types: [String] = ["com.example.app.edit"]) throws -> Manifest {
    try Manifest(bundleIdentifier: "com.example.app", teamIdentifier: team, activityTypes: types)
}

/// An engine on loopback: beacons on an ephemeral port, unicast to `peers`,
/// channel on 127.0.0.1, short timeouts.
public func loopbackEngine(account: AccountKey = testAccount, role: DeviceRole = .full, peers: [UInt16] = [],
                           fetchTimeout: Double = 1, name: String? = nil,
                           documentEnvironment: [String: String]? = nil) throws -> ContinuityEngine {
    var config = ContinuityConfiguration(
        account: account, device: try DeviceIdentity.generate(name: name ?? "test \(role.name)", role: role),
        beacons: BeaconTransportConfig(port: 0, multicast: false, peers: peers.map { UDPAddress(host: "127.0.0.1", port: $0)! }))
    config.channelAddress = SocketAddress(host: "127.0.0.1", port: 0)
    config.fetchTimeout = fetchTimeout
    config.documentEnvironment = documentEnvironment
    return try ContinuityEngine(configuration: config)
}

/// Dispatches `apps` until `done` holds or `seconds` pass.
@discardableResult
public func pump(_ apps: [Application], seconds: Double = 5, until done: () -> Bool) throws -> Bool {
    let end = monotonicSeconds() + seconds
    while monotonicSeconds() < end {
        for app in apps { try app.dispatch() }
        if done() { return true }
        usleep(2000)
    }
    return done()
}
