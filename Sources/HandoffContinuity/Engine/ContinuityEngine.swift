import FoundationEssentials
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
    private let keys: DerivedKeys
    private let state = Locked(State())
    private let replay = ReplayGuard()
    private let client: ExchangeClient
    private let streams = StreamRegistry()
    /// Confirmations being sent: `detach` lets them finish, so a host that
    /// frees its application right after continuing does not cut off the
    /// sender's `wasContinued`.
    private let confirms = InFlight()
    /// The scheduler thread and the verification handshakes: `detach` waits
    /// for them too, so that none is still inside OpenSSL when the host,
    /// having freed its application, exits and OpenSSL's exit handler frees
    /// what they use (a handshake started just before
    /// `handoff_application_free` crashed test_restoration in exit()).
    private let background = InFlight()
    private var transport: BeaconTransport!
    private var server: ChannelServer!
    private let wake: (read: Int32, write: Int32)

    private struct State: @unchecked Sendable {
        weak var endpoint: (any ContinuityEndpoint)?
        var advertisement: Advertisement?
        /// When to send the next beacon, and which burst step comes next.
        var nextBeacon: Double?
        var burstStep = 0
        /// Withdrawal beacons still to send for what was advertised last.
        var withdrawal: (activityID: UUID, remaining: [Double])?
        var lastSequence: UInt64 = 0
        var remotes = RemoteTable()
        var stopped = false
        /// The scheduler thread, which `detach` must not wait for when it
        /// runs there (the application's last release can happen on it).
        var scheduler: pthread_t?
    }

    /// Starts the channel server, the beacon transport and the scheduler.
    /// - Throws: `.io` when a socket cannot be opened (e.g. a port in use).
    public init(configuration: ContinuityConfiguration) throws(HandoffError) {
        self.configuration = configuration
        keys = configuration.account.derived
        client = ExchangeClient(psk: keys.channelPSK, limits: configuration.channelLimits,
                                fetchTimeout: configuration.fetchTimeout,
                                idleLifetime: configuration.idleConnectionLifetime)
        var fds: [Int32] = [-1, -1]
        guard clinux_pipe2(&fds, O_CLOEXEC | O_NONBLOCK) == 0 else {
            throw HandoffError(.io, "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        wake = (fds[0], fds[1])
        let exchange = ExchangeServer(endpoint: { [weak self] in self?.endpoint },
                                      fetchTimeout: configuration.fetchTimeout, streams: streams)
        do {
            server = try ChannelServer(listeningOn: configuration.channelAddress, psk: keys.channelPSK,
                                       limits: configuration.channelLimits) { exchange.serve($0) }
            transport = try BeaconTransport(config: configuration.beacons) { [weak self] packet, from in
                self?.received(packet, from: from)
            }
        } catch {
            server?.stop()
            close(wake.read)
            close(wake.write)
            throw error
        }
        let background = self.background
        background.begin()
        if !startDetachedThread({ [self] in
            self.scheduleLoop()
            background.end()
        }) { background.end() }
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    private var endpoint: (any ContinuityEndpoint)? { state.withLock { $0.endpoint } }

    /// Seconds `detach` waits for streams to send what their hosts wrote.
    static let streamDrainLimit = 3.0

    /// The TCP port the channel listens on (announced in beacons).
    public var channelPort: UInt16 { server.port }
    /// The UDP port beacons are received on.
    public var beaconPort: UInt16 { transport.port }

    // MARK: ContinuityService

    public func attach(_ endpoint: any ContinuityEndpoint) {
        state.withLock { $0.endpoint = endpoint }
    }

    public func advertise(_ advertisement: Advertisement?) {
        state.withLock { s in
            if let old = s.advertisement, old.activityID != advertisement?.activityID {
                s.withdrawal = (old.activityID, [0, 0.2, 0.6].map { monotonicSeconds() + $0 })
            }
            s.advertisement = advertisement
            s.burstStep = 0
            s.nextBeacon = advertisement == nil ? nil : monotonicSeconds()
        }
        poke()
    }

    public func fetch(_ remote: RemoteActivity, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        guard let peer = state.withLock({ $0.remotes.channel(offering: remote.activityID) }) else {
            completion(.failure(HandoffError(.connectionUnavailable, "the device that offered the activity is no longer reachable")))
            return
        }
        let client = self.client
        let started = startDetachedThread { completion(client.fetch(remote.activityID, from: peer)) }
        if !started { completion(.failure(HandoffError(.handoffFailed, "no thread could be started for the fetch"))) }
    }

    public func openStream(_ remote: RemoteActivity,
                           completion: @escaping @Sendable (Result<ContinuationStream, HandoffError>) -> Void) {
        guard let peer = state.withLock({ $0.remotes.channel(offering: remote.activityID) }) else {
            completion(.failure(HandoffError(.connectionUnavailable, "the device the activity came from is no longer reachable")))
            return
        }
        let (client, streams) = (self.client, self.streams)
        let started = startDetachedThread {
            let opened = client.openStream(remote.activityID, to: peer)
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
        guard let peer = state.withLock({ $0.remotes.channel(offering: remote.activityID) }) else { return }
        let client = self.client
        let confirms = self.confirms
        confirms.begin()
        let started = startDetachedThread {
            client.confirm(remote.activityID, to: peer)
            confirms.end()
        }
        if !started { confirms.end() }
    }

    /// Withdraws what is advertised (one last beacon), lets confirmations
    /// in flight finish (each is bounded by the channel's timeouts), then
    /// stops every thread and socket. Idempotent.
    public func detach() {
        let last: Advertisement? = state.withLock { s in
            guard !s.stopped else { return nil }
            s.stopped = true
            s.endpoint = nil
            return s.advertisement
        }
        if let last { send(withdrawal: last.activityID) }
        poke()
        // What hosts wrote to their streams before this still goes out.
        streams.drainAndEnd(within: Self.streamDrainLimit)
        transport.stop()
        server.stop()
        // Each job is bounded by the channel's timeouts.
        let limits = configuration.channelLimits
        let deadline = monotonicSeconds() + limits.connectTimeout + 2 * limits.handshakeTimeout + 1
        confirms.waitUntilIdle(seconds: deadline - monotonicSeconds())
        let onScheduler = state.withLock { s in s.scheduler.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        if !onScheduler { background.waitUntilIdle(seconds: deadline - monotonicSeconds()) }
        client.closeAll()
    }

    // MARK: Sending beacons

    /// The scheduler thread: beacons in bursts then keep-alives, withdrawal
    /// beacons, and the sweep of silent or expired remote activities.
    private func scheduleLoop() {
        state.withLock { $0.scheduler = pthread_self() }
        while true {
            let now = monotonicSeconds()
            let (advert, withdrawal, stopped, next): (Advertisement?, UUID?, Bool, Double) = state.withLock { s in
                var advert: Advertisement?
                if let due = s.nextBeacon, due <= now, let a = s.advertisement {
                    advert = a
                    s.burstStep += 1
                    let burst = configuration.burst
                    let delay = s.burstStep < burst.count ? burst[s.burstStep] - burst[s.burstStep - 1] : configuration.keepaliveInterval
                    s.nextBeacon = now + max(0.01, delay)
                }
                var withdrawal: UUID?
                if var w = s.withdrawal, let first = w.remaining.first, first <= now {
                    withdrawal = w.activityID
                    w.remaining.removeFirst()
                    s.withdrawal = w.remaining.isEmpty ? nil : w
                }
                let next = [s.nextBeacon, s.withdrawal?.remaining.first, now + 1].compactMap { $0 }.min()!
                return (advert, withdrawal, s.stopped, next)
            }
            if stopped { return }
            if let advert { send(advert) }
            if let withdrawal { send(withdrawal: withdrawal) }
            sweep()
            waitForPoke(until: next)
        }
    }

    private func send(_ ad: Advertisement) {
        let expirationMS = ad.expirationDate.map { UInt64(max(0, $0.timeIntervalSince1970 * 1000)) }
        if let e = expirationMS, e <= wallMilliseconds() {
            send(withdrawal: ad.activityID)  // expired: no longer offered
            return
        }
        let activity = BeaconActivity(activityID: ad.activityID.bytes, activityType: ad.activityType,
                                      title: ad.title.map { truncateUTF8($0, to: 256) },
                                      teamIdentifier: ad.teamIdentifier, bundleIdentifier: ad.bundleIdentifier,
                                      webpageURL: ad.webpageURL.map(\.absoluteString).flatMap { $0.utf8.count <= 1024 ? $0 : nil },
                                      expiration: expirationMS, supportsContinuationStreams: ad.supportsContinuationStreams)
        seal(kind: .advert, activity: activity)
    }

    private func send(withdrawal activityID: UUID) {
        let activity = BeaconActivity(activityID: activityID.bytes, activityType: "", title: nil, teamIdentifier: "",
                                      bundleIdentifier: "", webpageURL: nil, expiration: nil,
                                      supportsContinuationStreams: false)
        seal(kind: .withdraw, activity: activity)
    }

    private func seal(kind: Beacon.Kind, activity: BeaconActivity?) {
        let now = wallMilliseconds()
        // Strictly increasing, and still so after a restart: receivers drop
        // any sequence they have seen.
        let sequence = state.withLock { s in
            s.lastSequence = max(s.lastSequence + 1, now)
            return s.lastSequence
        }
        let device = configuration.device
        let beacon = Beacon(kind: kind, timestamp: now, sequence: sequence, deviceID: device.idBytes,
                            deviceName: device.name, role: device.role, channelPort: server.port, activity: activity)
        guard let packet = try? BeaconCodec.seal(beacon, key: keys.beaconKey) else { return }
        transport.send(packet)
    }

    // MARK: Receiving beacons

    private func received(_ packet: [UInt8], from: UDPAddress) {
        // Anything that does not authenticate is dropped here, silently.
        guard let beacon = BeaconCodec.open(packet, key: keys.beaconKey),
              beacon.deviceID != configuration.device.idBytes,
              replay.accept(beacon, nowMilliseconds: wallMilliseconds()) else { return }
        guard let endpoint = endpoint else { return }
        let manifest = endpoint.manifest
        let (changes, verify) = state.withLock { s in
            s.remotes.apply(beacon, from: from.host, manifest: manifest, ownRole: configuration.device.role,
                            now: monotonicSeconds())
        }
        changes.forEach(endpoint.remoteActivityChanged)
        if let channel = verify { startVerifying(hex(beacon.deviceID), at: channel) }
    }

    /// Proves a newly seen device is there now (its channel authenticates
    /// with the account's PSK) before reporting what it offers; the
    /// connection is kept warm for the first fetch.
    private func startVerifying(_ deviceID: String, at channel: SocketAddress) {
        let (client, background) = (self.client, self.background)
        background.begin()
        let started = startDetachedThread { [weak self] in
            let ok = client.verify(channel)
            // Out of OpenSSL; before anything here can hold the application
            // (whose last release would run `detach` on this thread).
            background.end()
            guard let self else { return }
            let (changes, endpoint) = self.state.withLock { s in (s.remotes.verified(deviceID, at: channel, ok), s.endpoint) }
            if let endpoint { changes.forEach(endpoint.remoteActivityChanged) }
        }
        if !started {
            background.end()
            _ = state.withLock { $0.remotes.verified(deviceID, at: channel, false) }
        }
    }

    private func sweep() {
        let (changes, endpoint) = state.withLock { s in
            (s.remotes.sweep(now: monotonicSeconds(), lifetime: configuration.remoteLifetime,
                             wallMilliseconds: wallMilliseconds()), s.endpoint)
        }
        if let endpoint { changes.forEach(endpoint.remoteActivityChanged) }
    }

    // MARK: Waking the scheduler

    private func poke() {
        var one: UInt8 = 1
        _ = write(wake.write, &one, 1)
    }

    private func waitForPoke(until deadline: Double) {
        let ms = Int32(max(0, min(1000, (deadline - monotonicSeconds()) * 1000)).rounded(.up))
        var p = pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
        if poll(&p, 1, ms) > 0 {
            var buffer = [UInt8](repeating: 0, count: 64)
            _ = read(wake.read, &buffer, buffer.count)
        }
    }
}

/// Cuts a string to at most `limit` UTF-8 bytes at a character boundary.
func truncateUTF8(_ s: String, to limit: Int) -> String {
    guard s.utf8.count > limit else { return s }
    var out = ""
    for c in s {
        guard out.utf8.count + String(c).utf8.count <= limit else { break }
        out.append(c)
    }
    return out
}
