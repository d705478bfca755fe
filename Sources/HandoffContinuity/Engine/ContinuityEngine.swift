// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import CLinux
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// What Apple's system does behind the app, for real between machines:
/// encrypted UDP beacons announce the current activity, a TLS 1.3 PSK
/// channel answers fetches, and beacons from the account's other devices
/// become availability events. One engine per application.
public final class ContinuityEngine: ContinuityService, @unchecked Sendable {
    // @unchecked: mutable state is in `state`; the rest is immutable or Sendable.
    public let configuration: ContinuityConfiguration
    let keys: DerivedKeys
    let state = Locked(State())
    let replay = ReplayGuard()
    let client: ExchangeClient
    /// Resolves the documents of fetched payloads (PROTOCOL.md §12).
    let documents: DocumentReceiver
    /// Every thread the engine starts but the verifier's (the scheduler,
    /// fetches, confirmations, streams, served connections): `detach` waits
    /// until they are gone, so a confirmation of a continue still reaches
    /// the sender when the host frees its application right after, and no
    /// thread is inside OpenSSL, or still holds its per-thread state, when
    /// the host then exits (a handshake still running in exit() uses what
    /// OpenSSL's exit handlers free; a verification still unwinding would
    /// leak its per-thread random generators).
    let threads = ThreadGroup()
    private let streams: StreamRegistry
    /// Verification handshakes: a few threads and a short queue, however
    /// many devices beacons name (PROTOCOL §5 "Bounds").
    let verifier = WorkerPool(threads: ContinuityEngine.verifyThreads, queueLimit: ContinuityEngine.verifyQueue,
                              name: "hoff-verifier")
    private(set) var transport: BeaconTransport!
    /// Where unicast beacon targets come from (docs/PROTOCOL.md "Peer sources").
    private var reach: PeerSources!
    var server: ChannelServer!
    /// What the scheduler thread sleeps on (docs/agent.md §8): `deadline`
    /// armed for the earliest deadline there is (none: disarmed, no
    /// wake-up; any thread arms it without waking the loop), a wake-up from
    /// whoever makes something due sooner, the settings file's watch and
    /// the pooled connections (`PoolWatches`).
    let scheduler: Reactor
    let schedulerTimer: Reactor.Timer
    /// The person's settings file and its watch (nil: defaults only).
    let settingsStore: SettingsStore?
    let settingsWatch: SettingsWatch?
    /// This device's name when renamed while running (`rename`).
    let renamed = Locked<String?>(nil)

    /// Where pairing beacons heard on the engine's beacon socket go (the
    /// agent's pairing, docs/agent.md §9); nil drops them as before.
    let pairingBeacons = Locked<(@Sendable ([UInt8], String) -> Void)?>(nil)
    /// The roster's last written generation; a write never replaces a newer one.
    let rosterWritten = Locked(0)
    /// Told when the roster shows something else (`onDevicesChanged`).
    let devicesListener = Locked<(@Sendable () -> Void)?>(nil)

    struct State: @unchecked Sendable {
        weak var endpoint: (any ContinuityEndpoint)?
        /// What is advertised: what the app asked for (`requested`) when
        /// the settings let it out, else nil.
        var advertisement: Advertisement?
        var requested: Advertisement?
        var settings = HandoffSettings.defaults
        /// When to send the next beacon, and which burst step comes next.
        var nextBeacon: Double?
        var burstStep = 0
        /// Withdrawal beacons still to send for what was advertised last.
        var withdrawal: (activityID: ActivityID, remaining: [Double])?
        var lastSequence: UInt64 = 0
        var remotes = RemoteTable()
        /// When the remote table's next sweep has something to do.
        var sweepDue: Double?
        /// The scheduler's own next deadline (beacons, withdrawals,
        /// solicitations, the pool's next reap), and what its timer is
        /// armed for (the earlier of that and `sweepDue`).
        var scheduled: Double?
        var armed: Double?
        /// Verification attempts, per source address and in all.
        var verifyLimit = RateLimiter<String>(perSource: ContinuityEngine.verifyPerSource.rate,
                                              perSourceBurst: ContinuityEngine.verifyPerSource.burst,
                                              overall: ContinuityEngine.verifyOverall.rate,
                                              overallBurst: ContinuityEngine.verifyOverall.burst, now: monotonicSeconds())
        /// Answers to solicitations, per source (address and port: receivers
        /// on one host each have their own) and in all.
        var answerLimit = RateLimiter<String>(perSource: ContinuityEngine.answerPerSource.rate,
                                              perSourceBurst: ContinuityEngine.answerPerSource.burst,
                                              overall: ContinuityEngine.answerOverall.rate,
                                              overallBurst: ContinuityEngine.answerOverall.burst, now: monotonicSeconds())
        /// Solicitations refused by `answerLimit`, one per source (its
        /// unicast address, nil on another path), and when to try them again.
        var owedAnswers: [String: UDPAddress?] = [:]
        var owedAnswersDue: Double?
        /// Solicitations still to send (monotonic times), and when the last
        /// burst of them began.
        var solicitations: [Double] = []
        var lastSolicitBurst = -Double.infinity
        var attachedOnce = false
        /// When to send the next presence beacon (monotonic): `presenceInterval`
        /// after the last beacon that shows this device is here; only
        /// while nothing is advertised (keep-alives show it then).
        var nextPresence: Double?
        /// The devices verified, online or not, and the generation of the
        /// roster last handed to `persist` (writes land in order).
        var roster = DeviceRoster()
        var rosterGeneration = 0
        /// Counters for tests and diagnostics.
        var counters = DiscoveryCounters()
        /// Every datagram of the beacon port, by kind (`BeaconTally`).
        var beacons = BeaconTally()
        var stopped = false
    }

    // MARK: Bounds (PROTOCOL §5 "Bounds")

    static let verifyThreads = 2
    static let verifyQueue = 32
    /// Verification attempts a second (and saved-up burst) per source address and overall.
    static let verifyPerSource = (rate: 2.0, burst: 8.0)
    static let verifyOverall = (rate: 10.0, burst: 20.0)
    /// Answers to solicitations a second (and burst) per source address and port, and overall.
    static let answerPerSource = (rate: 2.0, burst: 4.0)
    static let answerOverall = (rate: 4.0, burst: 8.0)
    /// A solicitation burst's delays; bursts start at most once a second.
    static let solicitBurst = [0.0, 0.3, 1.0]
    static let solicitSpacing = 1.0
    /// The withdrawal beacons' delays after an activity stops being advertised.
    static let withdrawalBurst = [0.0, 0.2, 0.6]

    /// Starts the channel server, the beacon transport and the scheduler.
    /// - Throws: `.io` when a socket cannot be opened (e.g. a port in use).
    public init(configuration: ContinuityConfiguration) throws(HandoffError) {
        self.configuration = configuration
        keys = configuration.account.derived
        streams = StreamRegistry(threads: threads)
        let scheduler: Reactor
        do {
            scheduler = try Reactor()
        } catch {
            throw HandoffError(.io, "cannot create the scheduler's wait: \(error)")
        }
        self.scheduler = scheduler
        // Its firing is a turn: the pass before the next wait does what is due.
        schedulerTimer = scheduler.timer {}
        let settingsStore = configuration.settingsDirectory.map(SettingsStore.init(directory:))
        self.settingsStore = settingsStore
        settingsWatch = settingsStore.map(SettingsWatch.init(store:))
        // A connection joining the pool is one more to watch, with a deadline.
        let paths = configuration.paths
        client = ExchangeClient(psk: keys.channelPSK, limits: configuration.channelLimits,
                                fetchTimeout: configuration.fetchTimeout,
                                idleLifetime: configuration.idleConnectionLifetime,
                                pooled: { scheduler.wake() }, dial: { peer, psk, limits throws(HandoffError) in
            guard let address = peer.path else { return try ChannelConnection.connect(to: peer, psk: psk, limits: limits) }
            guard let path = paths.first(where: { $0.kind == address.kind }) else {
                throw HandoffError(.connectionUnavailable, "\(peer) is reached through a \(address.kind.rawValue), and none is configured")
            }
            return try ChannelConnection.connect(overStream: try path.dial(address), peer: peer, psk: psk, limits: limits)
        })
        let gate = state
        let environment = configuration.documentEnvironment
        let places: @Sendable () -> DocumentPlaces = {
            DocumentPlaces.load(environment: environment ?? ProcessEnvironment.current,
                                settings: gate.withLock { $0.settings.documents })
        }
        let stop: WakePipe
        do { stop = try WakePipe() } catch { throw HandoffError(.io, "cannot create the engine's stop pipe: \(error)") }
        documents = DocumentReceiver(places: places, stop: stop)
        var exchanging = ExchangeServer(endpoint: { [weak self] in self?.endpoint },
                                        fetchTimeout: configuration.fetchTimeout, streams: streams,
                                        serves: { peer in gate.withLock { $0.remotes.serves(host: peer.host) } })
        exchanging.documents = DocumentSender(places: places)
        let exchange = exchanging
        do {
            server = try ChannelServer(listeningOn: configuration.channelAddress, psk: keys.channelPSK,
                                       limits: configuration.channelLimits, threads: threads) { exchange.serve($0) }
            transport = try BeaconTransport(config: configuration.beacons, interfacesChanged: { [weak self] in
                self?.solicit()
                self?.reach?.interfacesChanged()
            }) { [weak self] packet, from in
                self?.received(packet, from: from)
            }
        } catch {
            server?.stop()
            throw error
        }
        reach = PeerSources(Self.peerSources(configuration, transport: transport)) { [weak self] addresses, added in
            guard let self else { return }
            self.transport.setPeers(addresses)
            // Someone new to ask: what it offers is heard now, not at its next keep-alive.
            if added { self.solicitAdded() }
        }
        let roster = configuration.roster?.load() ?? DeviceRoster()
        state.withLock { s in
            s.roster = roster
            // Announced once at start, so the others list this device now.
            s.nextPresence = monotonicSeconds()
        }
        if let settingsStore { reloadSettings(from: settingsStore) }
        startScheduler()
        reach.start()
        for path in configuration.paths { path.start(pathEvents) }
    }

    /// What the other paths tell the engine (PROTOCOL §11 for the relay):
    /// their beacons are received as datagrams from the device's address
    /// on the path, a gone message is a device leaving, accepted streams
    /// go through the channel's admission.
    private var pathEvents: PeerPathEvents {
        PeerPathEvents(
            beacon: { [weak self] packet, from in
                self?.receive(packet, host: from.description, path: from, solicitor: nil)
            },
            gone: { [weak self] deviceID in
                guard let self, let endpoint = self.endpoint else { return }
                self.left(hex(deviceID), endpoint: endpoint)
            },
            accepted: { [weak self] fd, from, authenticated in
                guard let self else { close(fd); return }
                self.server.adopt(fd: fd, peer: SocketAddress(path: from), authenticated: authenticated)
            },
            connected: { [weak self] in self?.solicitAdded() },
            announce: { [weak self] in self?.announce() })
    }

    /// The link, each configured peer, and the tailnet when there is a
    /// discovery port to reach its devices on.
    static func peerSources(_ configuration: ContinuityConfiguration, transport: BeaconTransport) -> [any PeerSource] {
        var sources: [any PeerSource] = [LinkPeerSource(multicast: configuration.beacons.multicast) { [weak transport] in transport?.stats }]
        sources += configuration.beacons.peers.map(StaticPeerSource.init)
        sources += configuration.peerNames.map(NamedPeerSource.init)
        if let socket = configuration.tailnetSocket, configuration.beacons.port != 0 {
            sources.append(TailnetSource(socketPath: socket, port: configuration.beacons.port))
        }
        return sources + configuration.additionalPeerSources
    }

    /// Each peer source's and path's state now (`handoff doctor`, STATUS `sources`).
    public var peerSources: [PeerSourceState] { reach.states + configuration.paths.map(\.state) }

    // MARK: Settings (docs/agent.md "Settings")

    /// The settings in force now.
    public var settings: HandoffSettings { state.withLock { $0.settings } }

    /// Applies the person's settings at once: paused withdraws what is
    /// advertised (withdrawal beacons), answers a solicitation with
    /// presence only (the device is there, offering nothing), serves no
    /// FETCH and reports nothing heard (what was reported is withdrawn); a
    /// device not accepted from, or a muted app, is withdrawn here; a muted
    /// app is not advertised from here. Undoing any of it solicits, so
    /// what is offered nearby is shown again at once.
    public func apply(_ settings: HandoffSettings) {
        let (changes, endpoint, loosened, changed) = state.withLock { s in
            guard s.settings != settings else { return ([RemoteActivityChange](), s.endpoint, false, false) }
            let old = s.settings
            s.settings = settings
            setAdvertisement(&s, s.requested)
            let changes = s.remotes.apply(settings: settings)
            let loosened = (old.paused && !settings.paused)
                || old.devices.contains { settings.accepts(from: $0.key) && !old.accepts(from: $0.key) }
                || !old.mutedApps.subtracting(settings.mutedApps).isEmpty
            return (changes, s.endpoint, loosened, true)
        }
        if let endpoint { changes.forEach(endpoint.remoteActivityChanged) }
        poke()
        if loosened { solicit() }
        if changed, let handler = settingsApplied.withLock({ $0 }) { handler(settings) }
    }

    /// Called after new settings were applied (on the thread that applied
    /// them: the scheduler's for a file change): the agent's tray shows
    /// a pause set elsewhere. nil stops.
    public func onSettingsApplied(_ handler: (@Sendable (HandoffSettings) -> Void)?) {
        settingsApplied.withLock { $0 = handler }
    }

    private let settingsApplied = Locked<(@Sendable (HandoffSettings) -> Void)?>(nil)

    /// Called as a document is brought from another device, and when a
    /// wait for a sync begins (as `DocumentProgress` says), on the
    /// fetching thread; nil stops.
    public func onDocumentProgress(_ handler: (@Sendable (DocumentProgress) -> Void)?) {
        documentProgress.withLock { $0 = handler }
    }

    let documentProgress = Locked<(@Sendable (DocumentProgress) -> Void)?>(nil)

    /// How a fetching thread brings a document of `remote` from `paths`.
    func bringing(_ remote: RemoteActivity, from paths: [SocketAddress]) -> DocumentReceiver.Bring? {
        guard !paths.isEmpty else { return nil }
        let (client, report) = (self.client, reporting(remote))
        return { entry, copy in
            Self.firstReachable(paths) {
                client.fetchDocument(remote.activityID, entry, from: $0, into: copy) { report(entry, $0) }
            }
        }
    }

    /// Tells `onDocumentProgress` how far a document of `remote` came.
    func reporting(_ remote: RemoteActivity) -> DocumentReceiver.Report {
        let progress = documentProgress
        return { entry, received in
            progress.withLock { $0 }?(DocumentProgress(activityID: remote.activityID, name: entry.location.name,
                                                      device: remote.deviceName, received: received, total: entry.facts.size))
        }
    }

    /// Reads the settings file and applies it; a damaged one counts as the
    /// defaults, said once per change on standard error (an embedded app
    /// has no other voice; the agent's journal gets it).
    func reloadSettings(from store: SettingsStore) {
        let loaded = store.load()
        if let problem = loaded.problem {
            let line = "handoff: the settings file is not used (defaults apply): \(problem.message)\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
        }
        apply(loaded.settings)
    }

    var endpoint: (any ContinuityEndpoint)? { state.withLock { $0.endpoint } }

    /// Seconds `detach` waits for streams to send what their hosts wrote.
    static let streamDrainLimit = 3.0

    /// The TCP port the channel listens on (announced in beacons).
    public var channelPort: UInt16 { server.port }
    /// The UDP port beacons are received on.
    public var beaconPort: UInt16 { transport.port }
    /// The beacon transport's interfaces and paths (`handoff doctor`).
    public var beaconStats: BeaconTransportStats { transport.stats }

    // MARK: ContinuityService

    /// Attaching the first application solicits adverts, so what is
    /// offered nearby is heard at once rather than at the next keep-alive.
    public func attach(_ endpoint: any ContinuityEndpoint) {
        let first = state.withLock { s in
            s.endpoint = endpoint
            defer { s.attachedOnce = true }
            return !s.attachedOnce
        }
        if first { solicit() }
    }

    /// A peer source added addresses: a burst when none ran in the last
    /// second, else one solicitation now on top of the burst under way
    /// (which began before the new addresses were known: an engine's
    /// sources are first read just after it starts). Bounded by the
    /// sources: they change at most once a refresh.
    func solicitAdded() {
        guard configuration.device.role != .sendOnly else { return }
        let scheduled = state.withLock { s in
            let now = monotonicSeconds()
            guard !s.stopped, !s.settings.paused else { return false }
            if now - s.lastSolicitBurst >= Self.solicitSpacing {
                s.lastSolicitBurst = now
                s.solicitations = Self.solicitBurst.map { now + $0 }
            } else if s.solicitations.first.map({ $0 > now }) ?? true {
                s.solicitations.insert(now, at: 0)
            }
            return true
        }
        if scheduled { poke() }
    }

    /// Schedules a burst of solicitations (at most one burst a second; none
    /// on a send-only device, which is never offered anything).
    func solicit() {
        guard configuration.device.role != .sendOnly else { return }
        let scheduled = state.withLock { s in
            let now = monotonicSeconds()
            // Paused: nothing heard would be shown, so nothing is asked.
            guard !s.stopped, !s.settings.paused, now - s.lastSolicitBurst >= Self.solicitSpacing else { return false }
            s.lastSolicitBurst = now
            s.solicitations = Self.solicitBurst.map { now + $0 }
            return true
        }
        if scheduled { poke() }
    }

    /// The same advertisement again changes nothing (no new burst): apps
    /// repeat theirs when the person returns to them (for the agent's
    /// most-recent policy), which other devices need not hear.
    public func advertise(_ advertisement: Advertisement?) {
        let changed = state.withLock { s in
            s.requested = advertisement
            return setAdvertisement(&s, advertisement)
        }
        if changed { poke() }
    }

    /// Advertises `requested` if the settings let it out, else nothing;
    /// a change starts a burst (and withdraws what was advertised).
    @discardableResult
    private func setAdvertisement(_ s: inout State, _ requested: Advertisement?) -> Bool {
        let advertisement = requested.flatMap { s.settings.advertises($0) ? $0 : nil }
        guard s.advertisement != advertisement else { return false }
        if let old = s.advertisement, old.activityID != advertisement?.activityID {
            s.withdrawal = (old.activityID, Self.withdrawalBurst.map { monotonicSeconds() + $0 })
        }
        s.advertisement = advertisement
        s.burstStep = 0
        s.nextBeacon = advertisement == nil ? nil : monotonicSeconds()
        return true
    }

    /// Where to reach the device offering `activityID`, in the order to
    /// try: its direct paths heard lately, then its other paths (the relay, PROTOCOL §11).
    private func paths(offering activityID: ActivityID) -> [SocketAddress] {
        state.withLock { $0.remotes.channels(offering: activityID, now: monotonicSeconds(), recent: configuration.remoteLifetime) }
    }

    /// Runs `attempt` on each path in turn while it finds the device
    /// unreachable there; the last path's result otherwise.
    static func firstReachable<T>(_ paths: [SocketAddress],
                                  _ attempt: (SocketAddress) -> Result<T, HandoffError>) -> Result<T, HandoffError> {
        var result: Result<T, HandoffError> = .failure(HandoffError(.connectionUnavailable, "the device is not reachable"))
        for (i, path) in paths.enumerated() {
            result = attempt(path)
            guard case .failure(let error) = result, i < paths.count - 1,
                  error.code == .connectionUnavailable || error.code == .timedOut else { return result }
        }
        return result
    }

    public func fetch(_ remote: RemoteActivity, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        let paths = paths(offering: remote.activityID)
        guard !paths.isEmpty else {
            completion(.failure(HandoffError(.connectionUnavailable, "the device that offered the activity is no longer reachable")))
            return
        }
        let (client, documents, bring, report) = (self.client, self.documents, bringing(remote, from: paths), reporting(remote))
        let started = threads.start(named: "hoff-fetch") {
            let fetched = Self.firstReachable(paths) { client.fetch(remote.activityID, from: $0) }
            completion(fetched.flatMap { documents.resolve($0.bytes, revision: $0.revision, from: remote.deviceName, bring: bring, report: report) })
        }
        if !started { completion(.failure(HandoffError(.handoffFailed, "no thread could be started for the fetch"))) }
    }

    public func fetchAsSent(_ remote: RemoteActivity, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        let paths = paths(offering: remote.activityID)
        guard !paths.isEmpty else {
            completion(.failure(HandoffError(.connectionUnavailable, "the device that offered the activity is no longer reachable")))
            return
        }
        let client = self.client
        let started = threads.start(named: "hoff-fetch") {
            // Checked as a fetch's is, so that history keeps only what
            // the revision admits; resolved later as saved (revision nil).
            completion(Self.firstReachable(paths) { client.fetch(remote.activityID, from: $0) }
                .flatMap { DocumentReceiver.check($0.bytes, revision: $0.revision) })
        }
        if !started { completion(.failure(HandoffError(.handoffFailed, "no thread could be started for the fetch"))) }
    }

    public func resolveDocuments(_ payload: [UInt8], from remote: RemoteActivity,
                                 completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        guard DocumentReceiver.mayHoldDocuments(payload) else { return completion(.success(payload)) }
        let (documents, bring, report) = (self.documents, bringing(remote, from: paths(offering: remote.activityID)), reporting(remote))
        let started = threads.start(named: "hoff-fetch") {
            completion(documents.resolve(payload, revision: nil, from: remote.deviceName, bring: bring, report: report))
        }
        if !started { completion(.failure(HandoffError(.handoffFailed, "no thread could be started for the fetch"))) }
    }

    public func openStream(_ remote: RemoteActivity,
                           completion: @escaping @Sendable (Result<ContinuationStream, HandoffError>) -> Void) {
        let paths = paths(offering: remote.activityID)
        guard !paths.isEmpty else {
            completion(.failure(HandoffError(.connectionUnavailable, "the device the activity came from is no longer reachable")))
            return
        }
        let (client, streams) = (self.client, self.streams)
        let started = threads.start(named: "hoff-stream-in") {
            let opened = Self.firstReachable(paths) { client.openStream(remote.activityID, to: $0) }
            let pair: LocalSocketPair
            switch opened {
            case .failure(let error):
                completion(.failure(error))
                return
            case .success(let (connection, buffered)):
                do throws(HandoffError) {
                    pair = try LocalSocketPair()
                } catch {
                    connection.close()
                    completion(.failure(HandoffError(.handoffFailed, error.message)))
                    return
                }
                streams.willStart()  // before the host can write to it
                completion(.success(pair.host))
                // This thread now carries the stream until it ends.
                StreamPump.run(connection: connection, local: pair.library, buffered: buffered, registry: streams)
            }
        }
        if !started { completion(.failure(HandoffError(.handoffFailed, "no thread could be started for the stream"))) }
    }

    public func confirmContinued(_ remote: RemoteActivity) {
        let paths = paths(offering: remote.activityID)
        let client = self.client
        threads.start(named: "hoff-confirm") {
            for path in paths where client.confirm(remote.activityID, to: path) { break }
        }
    }

    /// Withdraws what is advertised (one last beacon), lets confirmations
    /// in flight finish (each is bounded by the channel's timeouts), then
    /// stops every thread and socket. Idempotent.
    public func detach() {
        // What is advertised, and what was withdrawn a moment ago whose
        // withdrawal beacons the scheduler (stopping now) may not have sent
        // yet (resign, then detach: without it, receivers keep the activity
        // for its 12 s lifetime).
        let last: [ActivityID]? = state.withLock { s in
            guard !s.stopped else { return nil }
            s.stopped = true
            s.endpoint = nil
            let ids = [s.withdrawal?.activityID, s.advertisement?.activityID].compactMap { $0 }
            s.withdrawal = nil
            return ids.count == 2 && ids[0] == ids[1] ? [ids[0]] : ids
        }
        // A continuation waiting on a sync or a document's bytes ends now,
        // not at its own deadline (minutes for a large document).
        documents.stop?.signal()
        client.cancel()
        for id in last ?? [] { send(withdrawal: id) }
        // The others show this device offline at once, not after 150 s.
        if last != nil { seal(kind: .presence, activity: nil, leaving: true) }
        // Each path carries that leaving presence, then ends cleanly.
        for path in configuration.paths { path.stop() }
        let roster = last == nil ? nil : state.withLock { s in
            let (now, wall) = (monotonicSeconds(), wallMilliseconds())
            for (id, entry) in s.remotes.entries where entry.verified {
                s.roster.heard(id, at: Self.wall(of: entry.lastHeard, now: now, wall: wall))
            }
            return nextRoster(&s)
        }
        persist(roster)
        // The scheduler's pass sees `stopped` and does nothing more.
        scheduler.stop()
        // What hosts wrote to their streams before this still goes out.
        streams.drainAndEnd(within: Self.streamDrainLimit)
        reach.stop()
        transport.stop()
        server.stop()
        // Each job is bounded by the channel's timeouts.
        let limits = configuration.channelLimits
        let deadline = monotonicSeconds() + limits.connectTimeout + 2 * limits.handshakeTimeout + 1
        threads.waitUntilGone(seconds: deadline - monotonicSeconds())
        // A verification may run this (its job held the last reference).
        verifier.stop(waiting: deadline - monotonicSeconds())
        client.closeAll()
    }

    /// Discovery's counters and sizes now: for tests and diagnostics.
    var discovery: DiscoveryCounters {
        var c = state.withLock { s in
            var c = s.counters
            c.remoteDevices = s.remotes.entries.count
            return c
        }
        c.verifierThreadsStarted = verifier.threadsStarted
        c.verificationsQueued = verifier.queued
        c.pooledConnections = client.pooledCount
        return c
    }

    /// The other devices heard now, and discovery's counters: what the
    /// agent's STATUS reports (read-only; `EngineStatus`).
    public var status: EngineStatus {
        let now = monotonicSeconds()
        let (remotes, beacons) = state.withLock { s in
            (s.remotes.entries.map { id, entry in
                EngineStatus.RemoteDevice(id: id, name: entry.name, role: entry.role,
                                          channels: entry.channels.values.map(\.description).sorted(),
                                          verified: entry.verified, revision: entry.revision,
                                          secondsSinceHeard: max(0, now - entry.lastHeard),
                                          lastError: entry.lastFailure.map { f in
                                              EngineStatus.VerificationError(channel: f.channel.description, error: f.error,
                                                                             secondsAgo: max(0, now - f.at))
                                          })
            }, s.beacons)
        }
        let counters = discovery.dictionary.merging(beacons.counters) { _, tally in tally }
        return EngineStatus(remotes: remotes.sorted { $0.id < $1.id }, counters: counters, beacons: beacons,
                            roster: roster, sources: peerSources)
    }
}

/// What discovery did, in counts (tests assert bounds on these).
struct DiscoveryCounters: Sendable, Equatable {
    var answers = 0
    var answersRefused = 0
    /// Answers sent later, to solicitations the limits first refused.
    var answersDeferred = 0
    var verifications = 0
    var verificationsLimited = 0
    var remoteDevices = 0
    var verifierThreadsStarted = 0
    var verificationsQueued = 0
    var pooledConnections = 0
}
