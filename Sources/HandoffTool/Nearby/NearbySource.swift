// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// The tool's one way to hear of, and fetch, what the account's other
/// devices offer (docs/cli.md "Where nearby, continue and doctor look"):
/// the agent's when it serves this user and account, else an engine of the
/// tool's own. Either is a `ContinuityService` with the tool attached as an
/// observer (every team's and type's activities, ungated), so both feed the
/// same `RemoteActivityChange`s; the choice is `ContinuityModeChoice`'s,
/// as for any app. Main thread only.
final class NearbySource {
    enum Via: String {
        case agent, embedded
    }

    static let options: [OptionSpec] = [
        .flag("--agent", "through the handoff agent, or fail (default: the agent when it runs and no device-level option is given)"),
        .flag("--embedded", "with an engine of the tool's own, even when an agent runs"),
    ]

    /// Options that set up the device's network: each asks for an engine
    /// of the tool's own, as an app's device-level options do (the agent
    /// owns the device's beacons and channel).
    static let deviceOptions = ["--beacon-port", "--peer", "--no-multicast", "--interface", "--channel", "--tailnet-socket",
                                "--no-tailnet"]

    let via: Via
    let service: any ContinuityService
    let account: AccountKey
    let device: DeviceIdentity
    private let queue: HostQueue
    private let relay = Relay()
    private let observer: any ContinuityEndpoint

    /// Changes reach `onChange` on the main thread (in the queue's dispatch).
    var onChange: (RemoteActivityChange) -> Void {
        get { relay.onChange }
        set { relay.onChange = newValue }
    }

    /// Carries the service's calls to the main thread's queue.
    private final class Relay: @unchecked Sendable {
        // @unchecked: `onChange` is set and called on the main thread only
        // (jobs posted to the queue run there).
        var onChange: (RemoteActivityChange) -> Void = { _ in }
    }

    /// Chooses and starts the source. `settings` configure the engine when
    /// it is embedded (its timeouts also bound the agent client's waits).
    /// `deviceOptions`: those of the command that set up the device's network.
    /// `settingsDirectory`: where the person's settings are, which an
    /// embedded engine honours as every engine does (docs/agent.md §11).
    init(_ arguments: ParsedArguments, settings: NetworkOptions.Settings, account: AccountKey, device: DeviceIdentity,
         queue: HostQueue, deviceOptions: [String] = NearbySource.deviceOptions, settingsDirectory: String? = nil) throws {
        let mode = try Self.mode(arguments, deviceOptions: deviceOptions)
        var choice = ContinuityModeChoice(mode: mode, accountID: account.id)
        choice.deviceSettings = deviceOptions.filter { arguments.has($0) || arguments.value($0) != nil }
        choice.observer = true
        if let fetch = settings.fetchTimeout { choice.fetchTimeout = fetch }
        if let connect = settings.connectTimeout { choice.connectTimeout = connect }
        let manifest = try ToolIdentity.manifest(team: ToolIdentity.team(arguments), types: [], arguments)
        var configuring = settings.configuration(account: account, device: device)
        configuring.settingsDirectory = settingsDirectory
        let config = configuring
        let (service, chosen) = try choice.start(manifest: manifest) { () throws(HandoffError) -> any ContinuityService in
            try ContinuityEngine(configuration: config)
        }
        self.service = service
        self.via = chosen == .agent ? .agent : .embedded
        self.account = account
        self.device = device
        self.queue = queue
        let relay = self.relay
        // Held here: a service keeps its endpoint weakly.
        observer = Observer(manifest: manifest) { change in queue.post { relay.onChange(change) } }
        service.attach(observer)
    }

    /// `--agent`, `--embedded`, or automatic; `--agent` with a device-level
    /// option is a usage error (the agent owns the device).
    static func mode(_ arguments: ParsedArguments,
                     deviceOptions: [String] = NearbySource.deviceOptions) throws(UsageError) -> ContinuityMode {
        let deviceLevel = deviceOptions.first { arguments.has($0) || arguments.value($0) != nil }
        switch (arguments.has("--agent"), arguments.has("--embedded")) {
        case (true, true):
            throw arguments.usage("--agent and --embedded exclude each other")
        case (true, false):
            if let deviceLevel {
                throw arguments.usage("\(deviceLevel) sets up this device's network, which the agent owns: "
                                      + "leave it out, or use --embedded")
            }
            return .agent
        case (false, true): return .embedded
        case (false, false): return .automatic
        }
    }

    var engine: ContinuityEngine? { service as? ContinuityEngine }
    var agent: AgentClient? { service as? AgentClient }

    /// "through the agent (socket PATH)" or "with its own engine (UDP port
    /// N, ...)", for the one line that says which.
    func describe(_ beacons: BeaconTransportConfig) -> String {
        if let agent { return tr("through the handoff agent ({socket})", ["socket": agent.options.socketPath]) }
        return tr("with an engine of its own ({how})", ["how": NetworkOptions.describe(beacons, port: engine?.beaconPort ?? beacons.port)])
    }

    /// What the engine knows now: the agent's STATUS, or the own engine's.
    /// Runs `loop` until the agent answers (nil when interrupted or it
    /// fails; the failure is thrown).
    func status(_ loop: MainLoop, timeout: Double = 10) throws(HandoffError) -> AgentStatus? {
        if let engine { return AgentStatus(engine: engine, device: device, clients: 0) }
        guard let agent else { return nil }
        final class Answer: @unchecked Sendable {
            // @unchecked: set and read on the main thread only.
            var result: Result<AgentStatus, HandoffError>?
            var loop: MainLoop?
        }
        let answer = Answer()
        answer.loop = loop
        let queue = self.queue
        agent.status { result in
            queue.post {
                answer.result = result
                answer.loop?.stop()
            }
        }
        while answer.result == nil {
            if loop.run(timeout: timeout) != .stopped { break }
        }
        switch answer.result {
        case .success(let status)?: return status
        case .failure(let error)?: throw error
        case nil: return nil
        }
    }

    /// Stops: the agent connection closes, or the engine withdraws and
    /// lets what it sends last (a confirmation) go out.
    func stop() {
        service.detach()
    }
}

/// The tool as an endpoint: an observer (sees every activity of the
/// account) that offers nothing and continues only what it fetches itself.
final class Observer: ContinuityEndpoint, Sendable {
    let manifest: Manifest
    private let deliver: @Sendable (RemoteActivityChange) -> Void

    init(manifest: Manifest, deliver: @escaping @Sendable (RemoteActivityChange) -> Void) {
        self.manifest = manifest
        self.deliver = deliver
    }

    var audience: ActivityAudience { .observer }

    func remoteActivityChanged(_ change: RemoteActivityChange) { deliver(change) }

    func provideActivity(_ activityID: ActivityID, reply: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Bool) {
        _ = reply(.failure(HandoffError(.handoffFailed, "the handoff command offers no activity here")))
    }

    func activityWasContinued(_ activityID: ActivityID) {}

    /// A CONTINUE for the tool (it never asks for one): nothing to do.
    func continueChosen(_ remote: RemoteActivity) {}
}
