// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import HandoffRuntime

/// One message of the local protocol between apps and the agent
/// (docs/agent.md §3). Each case is one message type; its number is
/// `AgentMessage.Kind`. Which side sends what is in the doc's table.
public enum AgentMessage: Sendable, Equatable {
    case hello(AgentHello)
    case welcome(AgentWelcome)
    /// The app's current activity; nil withdraws it.
    case advertise(Advertisement?)
    case remote(RemoteActivityChange)
    case fetch(ActivityID)
    case payload([UInt8])
    case provide(ActivityID)
    case confirm(ActivityID)
    case continued(ActivityID)
    case openStream(ActivityID)
    /// The reply to OPEN_STREAM; the stream's socket travels with it.
    case stream
    /// The agent passes a stream another device opened (its socket
    /// travels with it); the app answers OK or ERROR.
    case acceptStream(ActivityID)
    case ok
    /// Continue this activity: chosen outside the app; with the
    /// activation token of the person's click when there is one (key
    /// `activationToken`, docs/agent.md §3), so the app can raise its window.
    case continueActivity(RemoteActivity, activationToken: String? = nil)
    case error(HandoffError)
    /// The app asks for the agent's status.
    case statusRequest
    case status(AgentStatus)
    /// Continue this remote activity as the person would from a notification.
    case choose(ActivityID)
    /// The payload the app gave for this activity (its PAYLOAD to PROVIDE)
    /// did not reach the other device: the app's delegate hears
    /// `didFailToHandOff` with this error.
    case undelivered(ActivityID, HandoffError)
    /// OFFER (app → agent): the payload the advertised activity encodes to
    /// now, served for a fetch without PROVIDE; nil withdraws it.
    case offer(ActivityID, [UInt8]?)
    /// SERVED (agent → app): an offered payload went to a device.
    case served(ActivityID)
    /// INDEX (app → agent, revision 3): the payload of an activity eligible
    /// for search, for the agent's history (docs/history.md).
    case index(ActivityID, [UInt8])
    /// FORGET (app → agent, revision 3, request → OK): delete saved
    /// activities of this app from the history.
    case forget(SavedActivitySelection)
    /// BRINGING (agent → app, revision 4): a document of the remote
    /// activity the app's FETCH waits for is being brought along; the
    /// client moves that FETCH's deadline.
    case bringing(AgentBringing)
    /// GRANT (app → agent, revision 4, request → GRANTED): open a document
    /// the agent delivered to this app through the document portal
    /// (a `file:` URL as the app received it).
    case grant(String)
    /// GRANTED (agent → app, reply to GRANT): the path the sandboxed app
    /// opens, as bytes (a Linux name need not be UTF-8).
    case granted([UInt8])
    /// REVOKE (app → agent, revision 4, request → OK): end one GRANT of
    /// this URL.
    case revoke(String)

    public enum Kind: UInt8, Sendable, CaseIterable {
        case hello = 1, welcome, advertise, remote, fetch, payload, provide, confirm, continued,
             openStream, stream, acceptStream, ok, continueActivity, error, status, choose, undelivered, offer, served, index, forget,
             bringing, grant, granted, revoke

        /// The protocol revision that brought the type: sent only on a
        /// connection that agreed on this one or a later one in WELCOME.
        public var revision: Int {
            switch self {
            case .index, .forget: 3
            case .bringing, .grant, .granted, .revoke: 4
            default: 1
            }
        }
    }

    public var kind: Kind {
        switch self {
        case .hello: .hello
        case .welcome: .welcome
        case .advertise: .advertise
        case .remote: .remote
        case .fetch: .fetch
        case .payload: .payload
        case .provide: .provide
        case .confirm: .confirm
        case .continued: .continued
        case .openStream: .openStream
        case .stream: .stream
        case .acceptStream: .acceptStream
        case .ok: .ok
        case .continueActivity: .continueActivity
        case .error: .error
        case .statusRequest, .status: .status
        case .choose: .choose
        case .undelivered: .undelivered
        case .offer: .offer
        case .served: .served
        case .index: .index
        case .forget: .forget
        case .bringing: .bringing
        case .grant: .grant
        case .granted: .granted
        case .revoke: .revoke
        }
    }

    /// Whether a socket travels with this message (exactly one, then).
    public var carriesDescriptor: Bool { kind == .stream || kind == .acceptStream }

    /// Who sends a message: the decoder needs it where one number means
    /// two things (STATUS is a request one way and its reply the other).
    public enum Sender: Sendable { case app, agent }

    /// Messages a sender may send, as the doc's table says.
    static func allowed(_ kind: Kind, from sender: Sender) -> Bool {
        switch kind {
        case .payload, .ok, .error, .status: true
        case .hello, .advertise, .fetch, .confirm, .openStream, .choose, .offer, .index, .forget, .grant, .revoke: sender == .app
        case .welcome, .remote, .provide, .continued, .stream, .acceptStream, .continueActivity, .undelivered, .served, .bringing,
             .granted:
            sender == .agent
        }
    }
}

/// BRINGING: how far a document of a fetched remote activity came
/// (`DocumentProgress` as the agent passes it on).
public struct AgentBringing: Sendable, Equatable {
    /// The remote activity the app's FETCH named.
    public var activityID: ActivityID
    /// The document's name, as its sender described it.
    public var name: String
    /// Bytes so far (0 at the start, or while waiting for a sync), of `total`.
    public var received: UInt64
    public var total: UInt64

    public init(activityID: ActivityID, name: String, received: UInt64, total: UInt64) {
        self.activityID = activityID
        self.name = name
        self.received = received
        self.total = total
    }

    public init(_ progress: DocumentProgress) {
        self.init(activityID: progress.activityID, name: progress.name, received: progress.received, total: progress.total)
    }
}

/// HELLO: who the app is, and the protocol revisions it speaks
/// (`protocol` the lowest, `revision` the highest: docs/PROTOCOL.md §10).
public struct AgentHello: Sendable, Equatable {
    /// The revisions the app speaks. A revision-1 app (0.1.0) sends
    /// `protocol` 1 and no `revision`.
    public var revisions: ClosedRange<Int>
    public var manifest: Manifest
    public var pid: Int32
    /// Sees every team's and type's activities (the `handoff` command).
    public var observer: Bool

    public init(revisions: ClosedRange<Int> = ProtocolRevision.spoken, manifest: Manifest, pid: Int32, observer: Bool = false) {
        self.revisions = revisions
        self.manifest = manifest
        self.pid = pid
        self.observer = observer
    }
}

/// WELCOME: the device the agent speaks for.
public struct AgentWelcome: Sendable, Equatable {
    public var agentVersion: String
    /// 16 bytes.
    public var deviceID: [UInt8]
    public var deviceName: String
    public var role: DeviceRole
    /// The account's public id (hex), so an app can tell it is the same
    /// account as its own.
    public var accountID: String
    /// The protocol revision the agent chose: the highest both speak
    /// (`revision`; a revision-1 agent leaves it out).
    public var revision: Int

    public init(agentVersion: String, deviceID: [UInt8], deviceName: String, role: DeviceRole, accountID: String,
                revision: Int = ProtocolRevision.current) {
        self.agentVersion = agentVersion
        self.revision = revision
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.role = role
        self.accountID = accountID
    }
}

/// STATUS reply: what `handoff doctor` and `handoff nearby` show of the agent.
public struct AgentStatus: Sendable, Equatable {
    public struct Remote: Sendable, Equatable {
        public var deviceID: [UInt8]
        public var deviceName: String
        /// "host:port" of its channel, one per address family heard.
        public var addresses: [String]
        public var verified: Bool
        /// Milliseconds since its last beacon.
        public var lastHeardMilliseconds: Int64
        /// As its latest beacon says (`role`; full when an older agent leaves it out).
        public var role: DeviceRole
        /// Its latest failed verification until one succeeds (`lastError`;
        /// nil when none, or an older agent leaves it out).
        public var lastError: VerificationError?
        /// The protocol revision its channel agreed on when verified
        /// (`revision`; nil while unverified, or from a revision-1 agent).
        public var revision: Int?

        public init(deviceID: [UInt8], deviceName: String, addresses: [String], verified: Bool, lastHeardMilliseconds: Int64,
                    role: DeviceRole = .full, lastError: VerificationError? = nil, revision: Int? = nil) {
            self.revision = revision
            self.deviceID = deviceID
            self.deviceName = deviceName
            self.addresses = addresses
            self.verified = verified
            self.lastHeardMilliseconds = lastHeardMilliseconds
            self.role = role
            self.lastError = lastError
        }
    }

    /// STATUS `lastError`: the channel tried, the error, milliseconds ago.
    public struct VerificationError: Sendable, Equatable {
        public var address: String
        public var error: HandoffError
        public var milliseconds: Int64

        public init(address: String, error: HandoffError, milliseconds: Int64) {
            self.address = address
            self.error = error
            self.milliseconds = milliseconds
        }
    }

    /// STATUS `roster`: a device of the account the agent verified, online
    /// or not (`EngineStatus.RosterDevice`; empty from an older agent).
    public struct RosterDevice: Sendable, Equatable {
        public var deviceID: [UInt8]
        public var deviceName: String
        public var role: DeviceRole
        public var online: Bool
        /// Milliseconds since the Unix epoch.
        public var lastSeen: UInt64

        public init(deviceID: [UInt8], deviceName: String, role: DeviceRole, online: Bool, lastSeen: UInt64) {
            self.deviceID = deviceID
            self.deviceName = deviceName
            self.role = role
            self.online = online
            self.lastSeen = lastSeen
        }
    }

    public var deviceID: [UInt8]
    public var deviceName: String
    public var role: DeviceRole
    public var channelPort: UInt16
    public var beaconPort: UInt16
    public var clients: Int
    public var remotes: [Remote]
    public var counters: [String: Int64]
    /// The engine's beacon tally (`beacons`; empty when an older agent leaves it out).
    public var beacons: BeaconTally
    /// The devices the agent verified, online or not (`roster`; sorted by
    /// name; empty when an older agent leaves it out).
    public var roster: [RosterDevice]
    /// Where the engine's beacon targets come from (`sources`; empty when
    /// an older agent leaves it out): the link, each configured peer, the
    /// tailnet (docs/PROTOCOL.md "Peer sources").
    public var sources: [PeerSourceState]

    public init(deviceID: [UInt8], deviceName: String, role: DeviceRole, channelPort: UInt16, beaconPort: UInt16,
                clients: Int, remotes: [Remote], counters: [String: Int64], beacons: BeaconTally = BeaconTally(),
                roster: [RosterDevice] = [], sources: [PeerSourceState] = []) {
        self.roster = roster
        self.sources = sources
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.role = role
        self.channelPort = channelPort
        self.beaconPort = beaconPort
        self.clients = clients
        self.remotes = remotes
        self.counters = counters
        self.beacons = beacons
    }

    /// An engine's view as STATUS carries it: what the agent answers, and
    /// what the `handoff` command shows of an engine of its own.
    public init(engine: ContinuityEngine, device: DeviceIdentity, clients: Int, extraCounters: [String: Int64] = [:]) {
        let status = engine.status
        let remotes = status.remotes.map { r in
            Remote(deviceID: AgentBodyCoding.deviceBytes(r.id), deviceName: r.name, addresses: r.channels,
                   verified: r.verified, lastHeardMilliseconds: Int64((r.secondsSinceHeard * 1000).rounded()), role: r.role,
                   lastError: r.lastError.map { e in
                       VerificationError(address: e.channel, error: e.error, milliseconds: Int64((e.secondsAgo * 1000).rounded()))
                   }, revision: r.revision)
        }
        self.init(deviceID: device.idBytes, deviceName: device.name, role: device.role, channelPort: engine.channelPort,
                  beaconPort: engine.beaconPort, clients: clients, remotes: remotes,
                  counters: status.counters.merging(extraCounters) { _, extra in extra }, beacons: status.beacons,
                  roster: status.roster.map { d in
                      RosterDevice(deviceID: AgentBodyCoding.deviceBytes(d.id), deviceName: d.name, role: d.role,
                                   online: d.online, lastSeen: d.lastSeen)
                  }, sources: status.sources)
    }
}
