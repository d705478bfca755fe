// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// One app connected to the agent (docs/agent.md §3): its transport
/// (`AgentConnection`) and, after HELLO, its place on the hub. It is the
/// `ContinuityEndpoint` of that place: what the engine asks of the app
/// becomes a message, and the app's requests become calls on its port.
///
/// Threads: everything runs on the server's loop thread, but for the two
/// messages on a handoff's path: PROVIDE (the engine asks for a payload)
/// and the answer to the app's FETCH are written from the engine's thread
/// when the socket takes them (`AgentConnection.sendNow`), else queued
/// through the loop; the requests they belong to are in `requests`, under
/// a lock. The endpoint methods never block, as the hub requires.
final class AgentSession: ContinuityEndpoint, @unchecked Sendable {
    // @unchecked: state is touched on the loop thread only, but for
    // `requests` (locked); `identity` is set there once, before the hub
    // can read it.
    let connection: AgentConnection
    unowned let server: AgentServer
    /// When HELLO is due, before it came (CLOCK_MONOTONIC ns, `Monotonic`).
    let helloDeadline: UInt64

    private(set) var hello: AgentHello?
    /// The protocol revision agreed in WELCOME.
    private var revision = ProtocolRevision.unannounced
    private var port: HubPort?
    /// What this app was told others offer, by activity id (gated for it):
    /// its FETCH, CONFIRM, OPEN_STREAM and CHOOSE name one of these.
    private var told: [ActivityID: RemoteActivity] = [:]
    /// The requests in flight both ways, for any thread.
    private let requests = Locked(Requests())
    /// Documents delivered to this app, and those it opened through the
    /// document portal (Features/DocumentPortal); recorded on the fetch's thread.
    let documents = Locked(DeliveredDocuments())

    private struct Requests {
        /// Registered and not closed: the agent may ask it things.
        var registered = false
        /// Its requests the agent has not answered yet.
        var inFlight = 0
        /// The agent's requests it has not answered yet.
        var pending: [UInt32: PendingRequest] = [:]
        var nextRequestID: UInt32 = 1
        /// The app's latest ADVERTISE: its activity id and expiration.
        var advertised: (id: ActivityID, expiration: Timestamp?)?
        /// The payload the app offered for it (OFFER), if any.
        var offer: (id: ActivityID, payload: [UInt8])?
        /// The loop is between reading the app's datagrams and handling
        /// them: an offer may be about to be withdrawn.
        var reading = false
        /// Offered payloads served whose SERVED is not yet queued.
        var served: [ActivityID: Int] = [:]
        /// Its FETCHes not answered yet: the remote activity each names.
        var fetching: [UInt32: ActivityID] = [:]
    }

    fileprivate enum PendingRequest {
        case provide(ActivityID, @Sendable (Result<[UInt8], HandoffError>) -> Bool)
        case acceptStream(ActivityID, @Sendable (Result<Void, HandoffError>) -> Bool)
    }

    init(connection: AgentConnection, server: AgentServer, helloDeadline: UInt64) {
        self.connection = connection
        self.server = server
        self.helloDeadline = helloDeadline
    }

    var isOpen: Bool { !connection.isClosed }
    var isRegistered: Bool { port != nil && isOpen }
    var isObserver: Bool { hello?.observer ?? false }

    // MARK: ContinuityEndpoint (any thread: post to the loop)

    var manifest: Manifest { hello?.manifest ?? EndpointHub.identity }
    var audience: ActivityAudience { isObserver ? .observer : .application(manifest) }

    func remoteActivityChanged(_ change: RemoteActivityChange) {
        server.loop.post { [weak self] in self?.tell(change) }
    }

    /// PROVIDE, from the engine's thread: through the loop only when the
    /// socket does not take it at once.
    func provideActivity(_ activityID: ActivityID, reply: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Bool) {
        if let payload = takeOffer(activityID) {
            // The critical path is the reply; SERVED follows through the loop.
            let taken = reply(.success(payload))
            server.count { $0.servedFromOffers += 1 }
            server.loop.post { [weak self] in
                guard let self else { return }
                self.flushServed()
                if !taken { self.send(.undelivered(activityID, Self.late)) }
            }
            return
        }
        server.count { $0.provides += 1 }
        ask(.provide(activityID), pending: .provide(activityID, reply), onLoop: false)
    }

    /// The payload the app offered for `activityID`, when it is still what
    /// the app would answer PROVIDE with: offered after its latest
    /// ADVERTISE, not expired, and nothing the app sent since is unread
    /// (the loop is not handling its datagrams, and its socket holds none:
    /// checked under the lock the loop takes before it reads, so a
    /// withdrawal the app wrote before this cannot be overtaken). Counts
    /// the SERVED owed.
    private func takeOffer(_ activityID: ActivityID) -> [UInt8]? {
        requests.withLock { r -> [UInt8]? in
            guard r.registered, !r.reading, let offer = r.offer, offer.id == activityID,
                  let ad = r.advertised, ad.id == activityID else { return nil }
            if let expiration = ad.expiration, expiration <= Timestamp() { return nil }
            guard !connection.hasUnreadInput else { return nil }
            r.served[activityID, default: 0] += 1
            return offer.payload
        }
    }

    /// Loop thread: SERVED for each offered payload served so far, before
    /// whatever about that activity is sent next (CONTINUED, ACCEPT_STREAM).
    private func flushServed() {
        let served = requests.withLock { r in
            defer { r.served.removeAll() }
            return r.served
        }
        guard isRegistered else { return }
        for (id, n) in served { for _ in 0..<n { send(.served(id)) } }
    }

    /// The server's read turn: offers are not served from the first
    /// datagram read until all read are handled.
    func beginReading() { requests.withLock { $0.reading = true } }
    func endReading() { requests.withLock { $0.reading = false } }

    /// A continuation chosen for this app: CONTINUE, on the loop thread.
    func continueChosen(_ remote: RemoteActivity) {
        server.loop.post { [weak self] in self?.continueActivity(remote) }
    }

    func activityWasContinued(_ activityID: ActivityID) {
        server.loop.post { [weak self] in
            guard let self, self.isRegistered else { return }
            self.flushServed()
            self.send(.continued(activityID))
        }
    }

    func acceptStream(_ activityID: ActivityID, _ stream: ContinuationStream,
                      reply: @escaping @Sendable (Result<Void, HandoffError>) -> Bool) {
        server.loop.post { [weak self] in
            guard let self else {
                stream.close()
                return _ = reply(.failure(Self.gone))
            }
            self.flushServed()
            self.ask(.acceptStream(activityID), passing: stream, pending: .acceptStream(activityID, reply), onLoop: true)
        }
    }

    /// What the engine hears for a request the app can no longer answer.
    static let gone = HandoffError(.connectionUnavailable, "the application disconnected from the agent")

    // MARK: Messages from the app (loop thread)

    /// One message the app sent. Returns why the connection must close
    /// for it, or nil.
    func receive(_ frame: AgentFrame) -> String? {
        let id = frame.requestID
        if hello == nil {
            guard case .hello(let h) = frame.message else { return "its first message was \(frame.message.kind), not HELLO" }
            return register(h, requestID: id)
        }
        switch frame.message {
        case .hello:
            return "it said HELLO twice"
        case .advertise(let ad):
            // An advertisement withdraws the offer; OFFER follows it.
            requests.withLock { r in
                r.offer = nil
                r.advertised = ad.map { ($0.activityID, $0.expirationDate) }
            }
            port?.advertise(ad)
        case .offer(let activityID, let payload):
            requests.withLock { r in
                guard let payload else { return r.offer = nil }
                // Only for what is advertised now: an older offer is stale.
                r.offer = r.advertised?.id == activityID ? (activityID, payload) : nil
            }
        case .confirm(let activityID):
            // A history entry's device is not told (nothing is sent for history).
            guard server.savedContinuations.payload(for: activityID) == nil else { return nil }
            if let remote = told[activityID] { port?.confirmContinued(remote) }
        case .fetch(let activityID):
            guard begin(id) else { return nil }
            guard let port, let remote = told[activityID] else { return finish(id, .error(Self.notTold)) }
            requests.withLock { $0.fetching[id] = activityID }
            let saved = server.savedContinuations.payload(for: activityID)
            // A history entry being continued: from its saved payload, its
            // documents resolved here as a fetch's are.
            let fetch: (@escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) -> Void = saved.map { payload in
                { port.resolveDocuments(payload, from: remote, completion: $0) }
            } ?? { port.fetch(remote, completion: $0) }
            fetch { [weak self] result in
                let reply: AgentMessage
                switch result {
                case .success(let bytes):
                    reply = .payload(bytes)
                    // Before the app can read it: a GRANT may follow at once.
                    self?.documents.withLock { $0.record(payload: bytes) }
                case .failure(let error): reply = .error(error)
                }
                // From the fetch's thread when the socket takes it: the
                // loop would only add a wake-up on the handoff's path.
                guard let self, !self.finishNow(id, reply) else { return }
                self.server.loop.post { [weak self] in self?.finish(id, reply) }
            }
        case .openStream(let activityID):
            guard begin(id) else { return nil }
            guard let port, let remote = told[activityID] else { return finish(id, .error(Self.notTold)) }
            port.openStream(remote) { [weak self] result in
                // A stream nobody takes any more is closed when dropped.
                guard let self else { return }
                self.server.loop.post { [weak self] in
                    switch result {
                    case .success(let stream): self?.finish(id, .stream, passing: stream)
                    case .failure(let error): self?.finish(id, .error(error))
                    }
                }
            }
        case .statusRequest:
            guard begin(id) else { return nil }
            return finish(id, .status(server.status()))
        case .choose(let activityID):
            guard begin(id) else { return nil }
            switch server.routing.choose(activityID) {
            case .success: return finish(id, .ok)
            case .failure(let error): return finish(id, .error(error))
            }
        case .index(let activityID, let payload):
            server.history?.index(payload, activityID: activityID, from: self, device: server.currentDevice)
        case .forget(let selection):
            guard begin(id) else { return nil }
            guard let history = server.history, let hello else {
                return finish(id, .error(HandoffError(.connectionUnavailable, "this agent keeps no history (it is off or could not open its database)")))
            }
            history.forget(selection, bundle: hello.manifest.bundleIdentifier, team: hello.manifest.teamIdentifier) { [weak self] result in
                self?.server.loop.post { [weak self] in
                    switch result {
                    case .success: self?.finish(id, .ok)
                    case .failure(let error): self?.finish(id, .error(error))
                    }
                }
            }
        case .grant(let url):
            guard begin(id) else { return nil }
            grant(url, requestID: id)
        case .revoke(let url):
            guard begin(id) else { return nil }
            revoke(url, requestID: id)
        case .payload, .ok, .error:
            return answer(frame)
        case .welcome, .remote, .provide, .continued, .stream, .acceptStream, .continueActivity, .status, .undelivered, .served, .bringing,
             .granted:
            return "it sent \(frame.message.kind), which only the agent sends"  // the decoder refuses these first
        }
        return nil
    }

    /// What an app hears when its payload came after the engine stopped waiting.
    static let late = HandoffError(.remoteApplicationTimedOut,
        "this app's main thread handed over the activity only after the device that asked stopped waiting (it got 4610): dispatch more often")

    /// What a request for an activity this app was not told of gets.
    static let notTold = HandoffError(.connectionUnavailable, "the activity is not (or no longer) offered to this application")

    /// HELLO: registers on the hub, answers WELCOME, and hands over a
    /// continuation chosen while the app was being launched.
    private func register(_ h: AgentHello, requestID: UInt32) -> String? {
        // The highest revision both speak (docs/PROTOCOL.md §10); an app
        // whose range misses ours entirely is told which we speak.
        guard let revision = ProtocolRevision.agreed(theirs: h.revisions) else {
            let ours = ProtocolRevision.spoken
            send(.error(HandoffError(.invalidState,
                "the agent speaks protocol revisions \(ours.lowerBound)...\(ours.upperBound), the app \(h.revisions.lowerBound)...\(h.revisions.upperBound): update the older of the two")),
                 requestID: requestID)
            connection.closeWhenFlushed()
            return nil
        }
        hello = h
        self.revision = revision
        server.registered(self)
        let port = server.hub.makePort()
        self.port = port
        requests.withLock { $0.registered = true }
        port.attach(self)
        var welcome = server.welcome
        welcome.revision = revision
        send(.welcome(welcome), requestID: requestID)
        if !h.observer, let remote = server.routing.takePendingLaunch(for: h.manifest.bundleIdentifier) {
            // After what the hub just told it (posted before this job).
            server.loop.post { [weak self] in self?.continueActivity(remote) }
        }
        return nil
    }

    /// The app answered one of the agent's requests.
    private func answer(_ frame: AgentFrame) -> String? {
        guard let request = requests.withLock({ $0.pending.removeValue(forKey: frame.requestID) }) else {
            return "it answered request \(frame.requestID), which the agent did not send (or was answered)"
        }
        let taken: Bool
        switch (request, frame.message) {
        case (.provide(_, let reply), .payload(let bytes)): taken = reply(.success(bytes))
        case (.provide(_, let reply), .error(let error)): taken = reply(.failure(error))
        case (.acceptStream(_, let reply), .ok): taken = reply(.success(()))
        case (.acceptStream(_, let reply), .error(let error)): taken = reply(.failure(error))
        default: return "it answered \(request.kind) with \(frame.message.kind)"
        }
        if !taken {
            // The other device stopped waiting (it heard 4610); the app's
            // stream end, if any, reads ECONNRESET (PROTOCOL §8), and a
            // payload is told undelivered, as the embedded engine tells it.
            server.count { $0.lateReplies += 1 }
            server.log("late", "\(describe) answered \(request.kind) after the other device stopped waiting",
                       ["kind": .string(request.kind)])
            if case (.provide(let activityID, _), .payload) = (request, frame.message) {
                send(.undelivered(activityID, Self.late))
            }
        }
        return nil
    }

    // MARK: Messages to the app (loop thread)

    /// An activity another device offers changed, as gated for this app.
    private func tell(_ change: RemoteActivityChange) {
        guard isRegistered else { return }
        switch change {
        case .available(let r), .updated(let r): told[r.activityID] = r
        case .withdrawn(let r): told[r.activityID] = nil
        }
        send(.remote(change))
    }

    /// CONTINUE: the person chose `remote` (gated for this app) outside
    /// it; `activationToken` from the click, passed on so the app can raise
    /// its window (docs/agent.md §3).
    func continueActivity(_ remote: RemoteActivity, activationToken: String? = nil) {
        guard isRegistered else { return }
        told[remote.activityID] = remote  // its FETCH may come before the hub's REMOTE
        send(.continueActivity(remote, activationToken: ActivationToken.checked(activationToken)))
    }

    /// Sends an agent request and keeps its reply closure until answered.
    /// Any thread: straight into the socket when it takes it at once (no
    /// descriptor passed), else queued on the loop thread (at once when
    /// `onLoop`, else by a job posted there).
    private func ask(_ message: AgentMessage, passing stream: ContinuationStream? = nil, pending request: PendingRequest,
                     onLoop: Bool) {
        let limit = server.limits.maxAgentRequestsInFlight
        let admitted: Result<UInt32, HandoffError> = requests.withLock { r in
            guard r.registered else { return .failure(Self.gone) }
            guard r.pending.count < limit else {
                return .failure(HandoffError(.remoteApplicationTimedOut,
                                             "the application has \(r.pending.count) requests of the agent unanswered"))
            }
            repeat {
                r.nextRequestID = r.nextRequestID == UInt32.max ? 1 : r.nextRequestID + 1
            } while r.pending[r.nextRequestID] != nil
            r.pending[r.nextRequestID] = request
            return .success(r.nextRequestID)
        }
        let id: UInt32
        switch admitted {
        case .success(let admittedID): id = admittedID
        case .failure(let error):
            stream?.close()
            guard error.code == .remoteApplicationTimedOut else { return request.fail(error) }
            server.count { $0.refusedAgentRequests += 1 }
            // The app would have answered too late: it is told so (sent
            // from the loop thread, like every queued message).
            if case .provide(let activityID, _) = request {
                if onLoop {
                    send(.undelivered(activityID, error))
                } else {
                    server.loop.post { [self] in self.send(.undelivered(activityID, error)) }
                }
            }
            return request.fail(error)
        }
        // PROVIDE and ACCEPT_STREAM bodies are a UUID: they always fit.
        guard let bytes = try? AgentFrame(message, requestID: id).encoded() else {
            stream?.close()
            if let request = requests.withLock({ $0.pending.removeValue(forKey: id) }) {
                request.fail(HandoffError(.handoffFailed, "the agent could not encode \(message.kind)"))
            }
            return
        }
        if stream == nil, connection.sendNow(bytes) { return }
        // Closed meanwhile: `didClose` fails the request (it was pending).
        if onLoop { return connection.enqueue(bytes, passing: stream) }
        server.loop.post { [self] in self.connection.enqueue(bytes, passing: stream) }
    }

    /// Counts a request of the app in; false (after ERROR 4609) when it
    /// has too many in flight.
    private func begin(_ requestID: UInt32) -> Bool {
        let limit = server.limits.maxRequestsInFlight
        let inFlight: Int? = requests.withLock { r in
            guard r.inFlight < limit else { return r.inFlight }
            r.inFlight += 1
            return nil
        }
        if let inFlight {
            server.count { $0.refusedInFlight += 1 }
            send(.error(HandoffError(.connectionUnavailable,
                                     "\(inFlight) requests are in flight on this connection already (at most \(limit))")),
                 requestID: requestID)
            return false
        }
        return true
    }

    /// `finish` for the document portal's requests (Features/DocumentPortal).
    func finishDocumentRequest(_ requestID: UInt32, _ reply: AgentMessage) {
        finish(requestID, reply)
    }

    /// Answers a request counted in by `begin`. Returns nil (for `receive`).
    @discardableResult
    private func finish(_ requestID: UInt32, _ reply: AgentMessage, passing stream: ContinuationStream? = nil) -> String? {
        guard isOpen else {
            stream?.close()
            return nil
        }
        requests.withLock { r in
            r.inFlight -= 1
            r.fetching[requestID] = nil
        }
        send(reply, requestID: requestID, passing: stream)
        return nil
    }

    /// Answers a request counted in by `begin` from any thread, if the
    /// socket takes the answer at once; false when it did not (then
    /// `finish` on the loop thread).
    private func finishNow(_ requestID: UInt32, _ reply: AgentMessage) -> Bool {
        guard let bytes = try? AgentFrame(reply, requestID: requestID).encoded(), connection.sendNow(bytes) else { return false }
        requests.withLock { r in
            r.inFlight -= 1
            r.fetching[requestID] = nil
        }
        return true
    }

    private func send(_ message: AgentMessage, requestID: UInt32 = 0, passing stream: ContinuationStream? = nil) {
        let frame = AgentFrame(message, requestID: requestID)
        do {
            connection.enqueue(try frame.encoded(), passing: stream)
        } catch {
            // Only a body over 64 KiB: a request gets ERROR instead.
            stream?.close()
            server.log("too-large", "\(describe): \(error.message)")
            if requestID != 0, AgentFrame.isReply(message) {
                send(.error(HandoffError(.handoffFailed, error.message)), requestID: requestID)
            }
        }
    }

    /// A document is being brought along for a fetch of `progress`'s
    /// activity (loop thread): BRINGING, when one of this app's FETCHes
    /// waits for that activity and it speaks revision 4, so its client
    /// moves the FETCH's deadline (docs/agent.md §3).
    func bringing(_ progress: DocumentProgress) {
        guard isRegistered, revision >= AgentMessage.Kind.bringing.revision,
              requests.withLock({ $0.fetching.values.contains(progress.activityID) }) else { return }
        send(.bringing(AgentBringing(progress)))
    }

    // MARK: Closing (loop thread)

    /// Lets go of the hub (its advertisement is withdrawn) and fails what
    /// the engine still waits for from this app with 4609.
    func didClose() {
        revokeAllDocuments()
        port?.detach()
        port = nil
        let unanswered = requests.withLock { r in
            r.registered = false
            r.offer = nil
            r.served.removeAll()
            r.fetching.removeAll()
            defer { r.pending.removeAll() }
            return Array(r.pending.values)
        }
        told.removeAll()
        for request in unanswered { request.fail(Self.gone) }
    }

    /// "app com.example.notes (pid 123)" for the log.
    var describe: String {
        let who = hello.map { $0.observer ? "observer \($0.manifest.bundleIdentifier)" : "app \($0.manifest.bundleIdentifier)" } ?? "connection"
        return "\(who) (pid \(connection.peer.pid))"
    }
}

extension AgentSession.PendingRequest {
    var kind: String {
        switch self {
        case .provide: "PROVIDE"
        case .acceptStream: "ACCEPT_STREAM"
        }
    }

    func fail(_ error: HandoffError) {
        switch self {
        case .provide(_, let reply): _ = reply(.failure(error))
        case .acceptStream(_, let reply): _ = reply(.failure(error))
        }
    }
}

extension AgentFrame {
    /// Replies (PAYLOAD, STREAM, OK, WELCOME, STATUS, ERROR).
    static func isReply(_ message: AgentMessage) -> Bool {
        switch message {
        case .payload, .stream, .ok, .welcome, .status, .error: true
        default: false
        }
    }
}

extension AgentSession: ContinuingApp {
    var connectionOrder: UInt64 { connection.token }
}
