// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The `hoff-relay` thread of a `RelaySession` (docs/agent.md §12 "How it
/// runs"): the session's Reactor watches the broker's socket and the
/// relay's end of every pipe's socketpair, and one timer holds the earliest
/// real deadline (a pipe's retransmission or keepalive, a forgotten pipe's
/// drain limit, the MQTT keepalive, the next connection attempt). Each turn
/// starts with a round (`beforeEachWait`): the broker serviced for what the
/// last wait saw, other threads' requests taken, bytes moved, then the
/// watches' interest and the timer set for the wait. Everything here
/// belongs to that thread.
final class RelayLoop: @unchecked Sendable {
    // @unchecked: handed to the thread once and used there alone.
    private let session: RelaySession
    private let reactor: Reactor
    /// Fires at the earliest deadline: its wake-up is all it does.
    private let deadline: Reactor.Timer
    private var brokerWatch: (fd: Int32, watch: Reactor.Watch)?
    /// What the last wait saw on the broker's socket.
    private var brokerReady: Reactor.Events = []
    /// The bridges' sockets watched, by fd (open ones are distinct).
    private var bridgeWatches: [Int32: Reactor.Watch] = [:]
    private var broker: (any RelayBroker)?
    private var table: RelayPipeTable
    private var reader: RelayDeviceTopicReader
    private var bridges: [RelayPipeTable.Key: RelayStreamBridge] = [:]
    /// Bridges of forgotten pipes whose last bytes still go to the channel,
    /// until when they may try.
    private var draining: [(bridge: RelayStreamBridge, until: Double)] = []
    private var backoff = RelayBackoff()
    private var nextAttempt = 0.0
    /// This connection's Will session (§11 "Gone").
    private var sessionID: [UInt8] = []
    /// When the broker acknowledged every subscription of the current
    /// connection (nil before). A connection is healthy once it has been
    /// connected and subscribed for `session.healthyAfter` seconds; a drop
    /// after that waits the back-off's first step again, a drop before it
    /// the next step (a broker that accepts and then fails is not
    /// reconnected to once a second).
    private var subscribedAt: Double?
    /// When this device last announced itself because of an old gone
    /// message on its own topic: at most once per `announceSpacing`.
    private var lastOwnAnnounce = -Double.infinity
    static let announceSpacing = 30.0
    private var lastService = 0.0
    private var devices = Set<String>()
    private var drops: [RelayDropReason: Int] = [:]
    private let deviceTopic: String

    /// Seconds a forgotten pipe's bytes may wait for the channel to read them.
    static let drainLimit = 30.0

    init(session: RelaySession) {
        self.session = session
        reactor = session.reactor
        deadline = session.reactor.timer {}
        let now = monotonicSeconds()
        table = RelayPipeTable(account: session.account, ownDeviceID: session.deviceID, limits: session.limits, now: now)
        reader = RelayDeviceTopicReader(account: session.account, ownDeviceID: session.deviceID, now: now)
        deviceTopic = session.topics.deviceTopic(session.deviceID)
    }

    func run() {
        reactor.beforeEachWait { [unowned self] in self.round() }
        reactor.run()
        if let w = brokerWatch { reactor.unwatch(w.watch) }  // before their sockets close
        for watch in bridgeWatches.values { reactor.unwatch(watch) }
        reactor.release(deadline)
        finish()
        for bridge in bridges.values { bridge.close() }
        for d in draining { d.bridge.close() }
        session.finished.signal()
    }

    /// One round before each wait: the broker serviced for what the last
    /// wait saw, then (unless stopping: `session.stop()` has the reactor
    /// return after this turn) a connection attempt when due, the
    /// requests, the bytes, and the watches and timer for the next wait.
    private func round() {
        serviceBroker()
        if stopping { return }
        if broker == nil && monotonicSeconds() >= nextAttempt { attempt() }
        takeRequests()
        step()
        watchSockets()
        armDeadline()
    }

    private var stopping: Bool { session.shared.withLock { $0.stopping } }

    // MARK: The connection

    private func attempt() {
        let connected = wallMilliseconds()
        sessionID = Crypto.randomBytes(16)
        let gone = RelayGoneMessage(deviceID: session.deviceID, connected: connected, session: sessionID)
        let will = RelayWill(topic: deviceTopic, payload: gone.sealed(key: session.topics.goneKey))
        do throws(HandoffError) {
            let b = try session.connect(will)
            try b.connect(timeout: RelaySession.connectTimeout)
            for filter in session.topics.subscriptions(ownDeviceID: session.deviceID) { try b.subscribe(filter) }
            broker = b
            lastService = monotonicSeconds()
            subscribedAt = b.subscribed ? lastService : nil
            devices = []
            update { $0.connection = .connected; $0.message = nil; $0.retryIn = nil }
            session.hooks?.connected()
            session.hooks?.announce()
        } catch {
            let wait = backoff.failed(refused: error.code == .permission)
            nextAttempt = monotonicSeconds() + wait
            update {
                $0.connection = error.code == .permission ? .refused : .unreachable
                $0.message = error.message
                $0.retryIn = wait
            }
        }
    }

    /// The broker went away: pipes stay (their retransmissions recover
    /// what the gap lost, or they end by their own limits); beacons wait
    /// for the next connection, which announces afresh.
    private func lost(_ error: HandoffError) {
        broker = nil
        if healthy { backoff.succeeded() }
        subscribedAt = nil
        let wait = backoff.failed(refused: false)
        nextAttempt = monotonicSeconds() + wait
        devices = []
        update {
            $0.connection = .unreachable
            $0.message = error.message
            $0.retryIn = wait
        }
        session.shared.withLock { $0.beacons = [] }
    }

    /// Connected and subscribed for `healthyAfter` seconds by now.
    private var healthy: Bool {
        subscribedAt.map { monotonicSeconds() - $0 >= session.healthyAfter } ?? false
    }

    private func finish() {
        let queued = session.shared.withLock { s in
            defer { s.beacons = [] }
            return s.beacons
        }
        if let broker {
            for packet in queued { try? broker.publish(deviceTopic, packet, retain: true) }
            broker.disconnect()
        }
        broker = nil
        update { $0.connection = .stopped; $0.retryIn = nil }
    }

    // MARK: One round

    /// What other threads asked for: beacons to publish, pipes to open,
    /// pipes whose handshake completed.
    private func takeRequests() {
        let (beacons, opens, proven, departed) = session.shared.withLock { s in
            defer { s.beacons = []; s.opens = []; s.authenticated = []; s.departed = [] }
            return (s.beacons, s.opens, s.authenticated, Set(s.departed))
        }
        for tag in departed { table.resetAll(peer: tag) }
        if let broker {
            for packet in beacons {
                do throws(HandoffError) { try broker.publish(deviceTopic, packet, retain: true) } catch {
                    lost(error)
                    break
                }
            }
        }
        let now = monotonicSeconds()
        for open in opens {
            do throws(HandoffError) {
                let key = try table.open(to: open.peer, now: now)
                bridges[key] = open.bridge
            } catch {
                open.bridge.close()  // the channel's handshake sees the end at once
            }
        }
        for key in proven { table.markAuthenticated(key) }
    }

    /// Moves bytes between the pipes and their sockets, publishes the
    /// frames due, and lets go of forgotten pipes; again while anything
    /// moved (bounded: a pipe's window stops it).
    private func step() {
        for _ in 0..<64 {
            var moved = false
            for key in Array(bridges.keys) {
                guard var bridge = bridges[key] else { continue }
                if table.withPipe(key, { bridge.pump(&$0) }) == true { moved = true }
                bridges[key] = bridge
            }
            let now = monotonicSeconds()
            let frames = table.poll(now: now)
            if let broker {
                for (key, frame) in frames {
                    do throws(HandoffError) { try broker.publish(table.topic(for: key), frame.encoded(), retain: false) } catch {
                        lost(error)
                        break
                    }
                }
            }
            closeForgotten()
            draining = draining.compactMap { d in
                var d = d
                if d.bridge.flush() || d.until <= now {
                    d.bridge.close()
                    return nil
                }
                return d
            }
            update { $0.pipes = self.bridges.count }
            if !moved { break }
        }
    }

    /// Lets go of the bridges of pipes the table forgot: closed once what
    /// they hold for the channel is written (30 s at most).
    private func closeForgotten() {
        let now = monotonicSeconds()
        for key in table.takeForgotten() {
            guard var bridge = bridges.removeValue(forKey: key) else { continue }
            if bridge.flush() { bridge.close() } else { draining.append((bridge, now + Self.drainLimit)) }
        }
    }

    // MARK: Waiting

    /// The broker's socket: always readable, writable while its outbox
    /// holds bytes; each bridge's socket for what its pipe can take (none:
    /// parked); each draining bridge's for room.
    private func watchSockets() {
        let brokerFD = broker?.socket ?? -1
        if let w = brokerWatch, w.fd != brokerFD {
            reactor.unwatch(w.watch)
            brokerWatch = nil
        }
        if let broker, brokerFD >= 0 {
            let interest: Reactor.Events = broker.wantsWrite ? [.readable, .writable] : .readable
            if let w = brokerWatch {
                reactor.update(w.watch, interest)
            } else {
                brokerWatch = (brokerFD, reactor.watch(brokerFD, interest) { [unowned self] events in
                    if events.contains(.invalid) { self.brokerWatch = nil }
                    self.brokerReady = events
                })
            }
        }
        var wanted: [Int32: Reactor.Events] = [:]
        for (key, bridge) in bridges {
            wanted[bridge.fd] = Reactor.Events(rawValue: table.withPipe(key) { bridge.pollEvents($0) } ?? 0)
        }
        for d in draining { wanted[d.bridge.fd, default: []].formUnion(.writable) }
        for (fd, watch) in bridgeWatches where wanted[fd] == nil {
            reactor.unwatch(watch)
            bridgeWatches[fd] = nil
        }
        for (fd, interest) in wanted {
            if let watch = bridgeWatches[fd] {
                reactor.update(watch, interest)
            } else {
                // Nothing to do when ready: the next round pumps every bridge.
                bridgeWatches[fd] = reactor.watch(fd, interest) { [unowned self] events in
                    if events.contains(.invalid) { self.bridgeWatches[fd] = nil }
                }
            }
        }
    }

    /// The timer at the earliest deadline, just past it (the next whole
    /// millisecond, as poll's rounded-up timeout was: the round then sees
    /// it due); none without one.
    private func armDeadline() {
        var deadlines = [table.nextDeadline, draining.map(\.until).min()].compactMap { $0 }
        if let broker { deadlines.append(lastService + broker.keepalive) } else if !stopping { deadlines.append(nextAttempt) }
        let at = deadlines.min().flatMap { d -> UInt64? in
            let ms = (max(0, d) * 1000).rounded(.down) + 1
            return ms < Double(UInt64.max / 2_000_000) ? UInt64(ms) * 1_000_000 : nil
        }
        reactor.arm(deadline, at: at)
    }

    /// Services the broker for what the last wait saw on its socket, or
    /// for its keepalive, or to send what it holds; then its messages.
    private func serviceBroker() {
        let ready = brokerReady
        brokerReady = []
        guard let broker else { return }
        let readable = !ready.isDisjoint(with: [.readable, .hangUp, .error])
        let writable = ready.contains(.writable)
        let keepaliveDue = monotonicSeconds() >= lastService + broker.keepalive
        guard readable || writable || keepaliveDue || broker.wantsWrite else { return }
        do throws(HandoffError) {
            try broker.service(readable: readable, writable: writable)
            lastService = monotonicSeconds()
            if subscribedAt == nil, broker.subscribed { subscribedAt = lastService }
        } catch {
            lost(error)
            return
        }
        for message in broker.take() {
            handle(message)
            closeForgotten()  // before the next message can reuse a forgotten key
        }
        if broker.droppedMessages > 0 { update { $0.drops = self.mergedDrops() } }
    }

    // MARK: Messages

    private func handle(_ message: RelayBrokerMessage) {
        let now = monotonicSeconds()
        switch session.topics.parse(message.topic) {
        case nil:
            count(.topicMismatch)
        case .device(let tag)?:
            if tag == session.ownTag {
                ownTopic(message.payload)
                return
            }
            switch reader.read(message.payload, deviceTag: tag, now: now) {
            case .success(.beacon):
                devices.insert(tag)
                session.hooks?.beacon(message.payload, PeerPathAddress(kind: .relay, tag: tag))
            case .success(.gone(let gone)):
                devices.remove(tag)
                table.resetAll(peer: tag)  // its pipes died with it
                session.hooks?.gone(gone.deviceID)
            case .success(.own):
                break
            case .failure(let reason):
                count(reason)
            }
            update { $0.devices = self.devices.count }
        case .pipe(let to, let from, let pipe)?:
            // A pipe is opened only by a device whose authentic beacon came
            // through this connection: a made-up tag (anyone who may write
            // under our topics can claim one) takes no slot and no socket.
            if !devices.contains(from), message.payload.count > 1, message.payload[1] == RelayPipeFrame.Kind.open.rawValue {
                count(.unknownPipe)
                return
            }
            let arrival = table.receive(message.payload, topic: .pipe(to: to, from: from, pipe: pipe), now: now)
            switch arrival {
            case .accepted(let key), .acceptedShedding(let key, _):
                accept(key)
            case .frame, .refused, .dropped:
                break
            }
            update { $0.drops = self.mergedDrops() }
        }
    }

    /// A gone message of this device's own topic from an earlier connection
    /// (its Will published late, or one retained from before a crash):
    /// this device is here, so a fresh beacon replaces it.
    private func ownTopic(_ payload: [UInt8]) {
        guard payload.count == RelayGoneMessage.sealedSize,
              let gone = RelayGoneMessage.open(payload, key: session.topics.goneKey),
              gone.deviceID == session.deviceID, gone.session != sessionID,
              monotonicSeconds() - lastOwnAnnounce >= Self.announceSpacing else { return }
        lastOwnAnnounce = monotonicSeconds()
        session.hooks?.announce()
    }

    /// A pipe another device opened: its channel end goes to the engine's
    /// channel server; the relay keeps the other.
    private func accept(_ key: RelayPipeTable.Key) {
        let pair: (channelFD: Int32, bridge: RelayStreamBridge)
        do throws(HandoffError) { pair = try RelayStreamBridge.pair() } catch {
            _ = table.withPipe(key) { $0.reset(.refused) }
            return
        }
        if let old = bridges.updateValue(pair.bridge, forKey: key) { old.close() }
        let session = self.session
        guard let hooks = session.hooks else {
            close(pair.channelFD)
            return
        }
        hooks.accepted(pair.channelFD, PeerPathAddress(kind: .relay, tag: key.peer)) { session.authenticated(key) }
    }

    private func count(_ reason: RelayDropReason) {
        drops[reason, default: 0] += 1
        update { $0.drops = self.mergedDrops() }
    }

    private func mergedDrops() -> [String: Int] {
        var all: [String: Int] = [:]
        for (reason, n) in drops { all[reason.rawValue, default: 0] += n }
        for (reason, n) in table.drops { all[reason.rawValue, default: 0] += n }
        if let broker, broker.droppedMessages > 0 { all[RelayDropReason.oversized.rawValue, default: 0] += broker.droppedMessages }
        return all
    }

    /// Changes the status; tells the session's listener when the state
    /// or its message changed.
    private func update(_ change: (inout RelayStatus) -> Void) {
        let (changed, handler) = session.shared.withLock { s in
            let before = (s.status.connection, s.status.message)
            change(&s.status)
            return (before != (s.status.connection, s.status.message) ? s.status : nil, s.statusChanged)
        }
        if let changed, let handler { handler(changed) }
    }
}
