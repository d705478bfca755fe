// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// What an engine knows of the other devices now, and what its discovery
/// did, in counts: the agent's STATUS reply (docs/agent.md §3) and
/// diagnostics. A snapshot; reading it changes nothing.
public struct EngineStatus: Sendable, Equatable {
    public struct RemoteDevice: Sendable, Equatable {
        /// 32 hex digits.
        public var id: String
        /// As its latest beacon names it.
        public var name: String
        /// As its latest beacon says (a send-only device offers, and is offered nothing).
        public var role: DeviceRole
        /// Its channel, "host:port" (IPv6 in brackets), one per address family heard.
        public var channels: [String]
        /// Its channel completed a handshake with the account's key.
        public var verified: Bool
        /// The protocol revision its channel agreed on when it was verified
        /// (docs/PROTOCOL.md §10): below `ProtocolRevision.current`, the
        /// device runs an older release. Nil while unverified.
        public var revision: Int?
        public var secondsSinceHeard: Double
        /// Its latest failed verification, until one succeeds (a verified
        /// device whose channel moved may have one from before).
        public var lastError: VerificationError?
    }

    /// Why a device's channel did not complete a handshake.
    public struct VerificationError: Sendable, Equatable {
        /// The channel tried, "host:port".
        public var channel: String
        public var error: HandoffError
        public var secondsAgo: Double
    }

    /// A device of the account this one has verified (its channel
    /// completed a handshake with the account's key), online or not: the
    /// roster (`DeviceRoster`, kept across restarts by the agent), what
    /// `handoff devices`, STATUS `roster` and the tray list.
    public struct RosterDevice: Sendable, Equatable {
        /// 32 hex digits.
        public var id: String
        public var name: String
        public var role: DeviceRole
        /// Verified and heard within the presence lifetime (150 s: 2.5
        /// presence intervals), and it has not said it is leaving.
        public var online: Bool
        /// When it was last heard, ms since the Unix epoch (for an offline
        /// device possibly from before this engine started).
        public var lastSeen: UInt64

        public init(id: String, name: String, role: DeviceRole, online: Bool, lastSeen: UInt64) {
            self.id = id
            self.name = name
            self.role = role
            self.online = online
            self.lastSeen = lastSeen
        }
    }

    /// Sorted by id.
    public var remotes: [RemoteDevice]
    /// Discovery's counters by name (`DiscoveryCounters`, and the beacon
    /// counts of `beacons`).
    public var counters: [String: Int64]
    /// Every datagram of the beacon port, by kind, with senders.
    public var beacons: BeaconTally
    /// Sorted by name, then id.
    public var roster: [RosterDevice] = []
    /// Where beacon targets come from, each source's state (`PeerSources`).
    public var sources: [PeerSourceState] = []
}

extension DiscoveryCounters {
    /// The counters by name, for STATUS.
    var dictionary: [String: Int64] {
        ["solicitAnswers": Int64(answers), "solicitAnswersRefused": Int64(answersRefused),
         "solicitAnswersDeferred": Int64(answersDeferred),
         "verifications": Int64(verifications), "verificationsLimited": Int64(verificationsLimited),
         "remoteDevices": Int64(remoteDevices), "verifierThreadsStarted": Int64(verifierThreadsStarted),
         "verificationsQueued": Int64(verificationsQueued), "pooledConnections": Int64(pooledConnections)]
    }
}
