// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The reader thread: what the agent sends, deadlines, reconnection.
extension AgentClient {
    /// Datagrams read in one round before deadlines are looked at again.
    static let readBatch = 64

    /// The loop, until `detach`: the socket, the jobs app threads post and
    /// the two timers wake it; nothing does while nothing waits.
    func run() {
        watchConnection()
        reactor.run()
        _ = reactor.close()  // nothing is posted once stopped (`requestSettle`)
        reactor.release(requestTimer)
        reactor.release(reconnectTimer)
        closeForGood()
    }

    /// Watches the current connection's socket (nothing without one),
    /// instead of the previous one's. Reader thread, or before it starts.
    func watchConnection() {
        if let watch = socketWatch {
            reactor.unwatch(watch)
            socketWatch = nil
        }
        let current = state.withLock { s in s.connection.map { ($0.fd, $0.generation, Self.interest(s)) } }
        guard let (fd, generation, interest) = current else { return }
        socketWatch = reactor.watch(fd, interest) { [weak self] events in
            self?.ready(events, fd: fd, generation: generation)
        }
    }

    /// Readable, and writable too while output waits for room.
    private static func interest(_ s: State) -> Reactor.Events {
        s.outbox.isEmpty ? .readable : [.readable, .writable]
    }

    /// The socket is ready: the outbox flushed into the room there is,
    /// then what arrived read.
    private func ready(_ events: Reactor.Events, fd: Int32, generation: UInt64) {
        if events.contains(.writable) { state.withLock { s in flush(in: &s) } }
        if !events.subtracting(.writable).isEmpty { readAvailable(fd, generation: generation) }
        settle()
    }

    /// On the reader thread: drops a connection a send found broken, and
    /// waits for room only while the outbox holds something (a socket
    /// with room is always writable: watched for it, the loop would spin).
    func settle() {
        guard reactor.isLoopThread else { return }
        let (failure, interest) = state.withLock { s in
            s.settlePosted = false
            return (s.connection?.failure, Self.interest(s))
        }
        if let failure { return drop(failure) }
        if let socketWatch { reactor.update(socketWatch, interest) }
    }

    /// Reads and handles what arrived, up to `readBatch` datagrams.
    private func readAvailable(_ fd: Int32, generation: UInt64) {
        for _ in 0..<Self.readBatch {
            switch LocalSocket.receive(fd) {
            case .message(let bytes, let descriptors):
                guard handle(bytes, descriptors, generation: generation) else { return }
            case .wouldBlock:
                return
            case .closed:
                drop("the agent closed the connection")
                return
            case .truncated:
                drop("the agent sent a message larger than \(AgentFrame.maxSize) bytes")
                return
            case .failed(let code):
                drop("reading from the agent failed (\(String(cString: strerror(code))))")
                return
            }
        }
    }

    /// One datagram from the agent; false when the connection was dropped.
    private func handle(_ bytes: [UInt8], _ descriptors: [Int32], generation: UInt64) -> Bool {
        let frame: AgentFrame
        do {
            frame = try AgentFrame(decoding: bytes, from: .agent)
        } catch {
            descriptors.forEach { close($0) }
            switch error {
            case .unknownType(let type, let id) where descriptors.isEmpty:
                // A newer agent's message: answered when it is a request,
                // ignored when it is an event.
                if id != 0 {
                    state.withLock { s in
                        _ = send(AgentFrame(.error(HandoffError(.handoffFailed, "this app does not know message type \(type)")),
                                            requestID: id), in: &s)
                    }
                }
                return true
            default:
                drop("the agent sent a malformed message: \(error.message)")
                return false
            }
        }
        guard descriptors.count == (frame.message.carriesDescriptor ? 1 : 0) else {
            descriptors.forEach { close($0) }
            drop("the agent sent \(descriptors.count) descriptors with \(frame.message.kind)")
            return false
        }
        let endpoint = state.withLock { $0.endpoint }
        switch frame.message {
        case .remote(let change):
            reported(change, to: endpoint)
        case .provide(let activityID):
            return provide(activityID, requestID: frame.requestID, generation: generation, endpoint: endpoint)
        case .continued(let activityID):
            endpoint?.activityWasContinued(activityID)
        case .acceptStream(let activityID):
            return acceptStream(activityID, descriptors[0], requestID: frame.requestID, generation: generation, endpoint: endpoint)
        case .continueActivity(let remote, let token):
            endpoint?.continueChosen(remote, activationToken: token)
        case .undelivered(let activityID, let error):
            endpoint?.handOffFailed(activityID, error.asUserActivityErrorForWire)
        case .served(let activityID):
            endpoint?.activityServed(activityID)
        case .bringing(let progress):
            bringing(progress)
        case .payload, .stream, .ok, .error, .welcome, .status, .granted:
            return reply(frame, descriptor: descriptors.first)
        case .hello, .advertise, .fetch, .confirm, .openStream, .statusRequest, .choose, .offer, .index, .forget, .grant, .revoke:
            drop("the agent sent \(frame.message.kind), which only apps send")  // the decoder refuses these already
            return false
        }
        return true
    }

    // MARK: Replies to the app's requests

    private func reply(_ frame: AgentFrame, descriptor: Int32?) -> Bool {
        let match = state.withLock { s in
            defer { disarmTimerIfNothingWaits(in: &s) }
            return s.requests.take(frame.requestID)
        }
        let request: AgentRequests.Outgoing
        switch match {
        case .late:
            if let descriptor { close(descriptor) }
            return true
        case .none:
            if let descriptor { close(descriptor) }
            drop("the agent answered request \(frame.requestID), which this app did not make or has been answered")
            return false
        case .request(let r):
            request = r
        }
        switch (request, frame.message) {
        case (.fetch(_, let completion), .payload(let bytes)):
            completion(.success(bytes))
        case (.openStream(let completion), .stream):
            do throws(HandoffError) {
                completion(.success(try AgentStreamDescriptor.stream(descriptor!)))
            } catch {
                completion(.failure(error))
            }
        case (.status(let completion), .status(let status)):
            completion(.success(status))
        case (.status(let completion), .error(let error)):
            completion(.failure(error))
        case (.ok(let completion), .ok):
            completion(.success(()))
        case (.ok(let completion), .error(let error)):
            completion(.failure(error))
        case (.path(let completion), .granted(let path)):
            completion(.success(path))
        case (.path(let completion), .error(let error)):
            completion(.failure(error))
        case (_, .error(let error)):
            request.fail(error.asUserActivityErrorForWire)
        default:
            if let descriptor { close(descriptor) }
            request.fail(HandoffError(.handoffFailed, "the agent answered with an unexpected \(frame.message.kind)"))
            drop("the agent answered a request with \(frame.message.kind)")
            return false
        }
        return true
    }

    // MARK: The agent's requests

    /// PROVIDE: the app's main thread hands over the payload, within the
    /// fetch timeout (else the client answers 4610, as the engine does).
    private func provide(_ activityID: ActivityID, requestID: UInt32, generation: UInt64,
                         endpoint: (any ContinuityEndpoint)?) -> Bool {
        switch admit(requestID, stream: nil) {
        case .admitted: break
        case .refused: return true
        case .dropped: return false
        }
        guard let endpoint else {
            _ = answer(requestID, generation, .error(HandoffError(.handoffFailed, "the application has stopped")))
            return true
        }
        endpoint.provideActivity(activityID) { [weak self] result in
            guard let self else { return false }
            switch result {
            case .success(let payload): return self.answer(requestID, generation, .payload(payload))
            case .failure(let error): return self.answer(requestID, generation, .error(error.asUserActivityError))
            }
        }
        return true
    }

    /// ACCEPT_STREAM: the app takes the stream (OK) or refuses it (ERROR;
    /// its socket is closed then), within the fetch timeout.
    private func acceptStream(_ activityID: ActivityID, _ descriptor: Int32, requestID: UInt32, generation: UInt64,
                              endpoint: (any ContinuityEndpoint)?) -> Bool {
        let stream: ContinuationStream
        do throws(HandoffError) {
            stream = try AgentStreamDescriptor.stream(descriptor)
        } catch {
            switch admit(requestID, stream: nil) {
            case .admitted: _ = answer(requestID, generation, .error(error))
            case .refused: break
            case .dropped: return false
            }
            return true
        }
        switch admit(requestID, stream: stream) {
        case .admitted: break
        case .refused:
            stream.close()
            return true
        case .dropped:
            stream.close()
            return false
        }
        guard let endpoint else {
            stream.close()
            _ = answer(requestID, generation, .error(HandoffError(.handoffFailed, "the application has stopped")))
            return true
        }
        endpoint.acceptStream(activityID, stream) { [weak self] result in
            guard let self else {
                stream.close()
                return false
            }
            switch result {
            case .success:
                return self.answer(requestID, generation, .ok)
            case .failure(let error):
                stream.close()
                return self.answer(requestID, generation, .error(error.asUserActivityError))
            }
        }
        return true
    }

    private enum Admission {
        case admitted
        /// Answered 4609 at once: too many in flight.
        case refused
        /// A protocol error: the connection was dropped.
        case dropped
    }

    /// Admits an agent request. A 17th request in flight is answered 4609
    /// at once; an id that already waits is a protocol error and drops the
    /// connection.
    private func admit(_ requestID: UInt32, stream: ContinuationStream?) -> Admission {
        let deadline = monotonicSeconds() + options.fetchTimeout
        let admission: Admission = state.withLock { s in
            if s.requests.admit(requestID, deadline: deadline, stream: stream) {
                armTimer(for: deadline, in: &s)
                return .admitted
            }
            if s.requests.isWaiting(requestID) { return .dropped }
            send(AgentFrame(.error(HandoffError(.connectionUnavailable,
                                                "\(AgentRequests.limit) requests to this app are in flight already")),
                            requestID: requestID), in: &s)
            return .refused
        }
        if admission == .dropped { drop("the agent reused request id \(requestID) while it was in flight") }
        return admission
    }

    /// The app's answer to the agent's request, sent when the request still
    /// waits on the same connection: returns whether it did.
    func answer(_ requestID: UInt32, _ generation: UInt64, _ message: AgentMessage) -> Bool {
        state.withLock { s in
            guard s.connection?.generation == generation, s.requests.answer(requestID) else { return false }
            disarmTimerIfNothingWaits(in: &s)
            if !send(AgentFrame(message, requestID: requestID), in: &s), case .payload = message {
                // Too large for one message (never for a payload within
                // ActivityCoding's limit: AgentFrame.maxSize holds it).
                send(AgentFrame(.error(HandoffError(.handoffFailed, "the activity does not fit an agent message")),
                                requestID: requestID), in: &s)
            }
            return true
        }
    }

    // MARK: Events

    /// REMOTE: passed on, and remembered so that a lost agent's activities
    /// can be withdrawn. An update of one never reported arrives as
    /// available, a withdrawal of one never reported is dropped.
    private func reported(_ change: RemoteActivityChange, to endpoint: (any ContinuityEndpoint)?) {
        let forward: RemoteActivityChange? = state.withLock { s in
            let r = change.remote
            switch change {
            case .available, .updated:
                let known = s.reported[r.activityID] != nil
                guard known || s.reported.count < Self.reportedLimit else { return nil }
                s.reported[r.activityID] = r
                return known ? .updated(r) : .available(r)
            case .withdrawn:
                guard let old = s.reported.removeValue(forKey: r.activityID) else { return nil }
                return .withdrawn(old)
            }
        }
        if let forward { endpoint?.remoteActivityChanged(forward) }
    }

    // MARK: Deadlines

    /// BRINGING: the agent is bringing a document along for a FETCH of
    /// this activity, so it answers later than a FETCH's own deadline; each
    /// report gives the FETCHes of that activity `requestTimeout` from now.
    /// Ignored from an agent that agreed on a revision without it. The
    /// timer, armed for the old deadline, finds nothing due then and is
    /// armed again for the new one.
    private func bringing(_ progress: AgentBringing) {
        state.withLock { s in
            guard let revision = s.connection?.welcome.revision, revision >= AgentMessage.Kind.bringing.revision else { return }
            let deadline = monotonicSeconds() + options.requestTimeout
            if s.requests.extendFetches(of: progress.activityID, to: deadline) { s.bringingReports += 1 }
        }
    }

    /// The request timer fired: what is due expires, and the timer is armed
    /// for what waits still.
    func deadlinePassed() {
        state.withLock { $0.timerArmedFor = nil }
        expire()
        state.withLock { s in
            if let next = s.requests.nextDeadline { armTimer(for: next, in: &s) }
        }
    }

    /// Fails the app's requests the agent did not answer in time (4610, as
    /// the engine's timeouts) and answers 4610 for the agent's requests the
    /// app's main thread did not answer in time.
    private func expire() {
        let now = monotonicSeconds()
        let (outgoing, incoming) = state.withLock { s in
            let due = s.requests.expire(now: now)
            for (id, request) in due.incoming {
                let what = request.stream == nil ? "hand over the activity" : "take the stream"
                send(AgentFrame(.error(HandoffError(.remoteApplicationTimedOut,
                                                    "the application did not \(what) within \(options.fetchTimeout) s (is its main loop dispatching?)")),
                                requestID: id), in: &s)
            }
            return due
        }
        incoming.forEach { $0.1.stream?.close() }
        let timedOut = HandoffError(.remoteApplicationTimedOut, "the handoff agent did not answer within \(options.requestTimeout) s")
        outgoing.forEach { $0.fail(timedOut) }
    }

    // MARK: Losing and making the connection

    /// Drops the current connection: its requests fail with 4609, the
    /// activities it reported are withdrawn, a reconnection is scheduled.
    /// On the reader thread (it unwatches the socket before closing it).
    func drop(_ reason: String) {
        if let watch = socketWatch {
            reactor.unwatch(watch)
            socketWatch = nil
        }
        let now = monotonicSeconds()
        let lost: ([AgentRequests.Outgoing], [ContinuationStream], [RemoteActivity], (any ContinuityEndpoint)?)? = state.withLock { s in
            guard let c = s.connection else { return nil }
            close(c.fd)
            s.connection = nil
            s.outbox = []
            s.lastFailure = reason
            let (outgoing, streams) = s.requests.removeAll()
            disarmTimerIfNothingWaits(in: &s)
            let withdrawn = s.reported.values.sorted { $0.firstSeen < $1.firstSeen }
            s.reported = [:]
            if now - c.since >= options.backoff.max { s.backoff = options.backoff.initial }
            if !s.stopped, options.onLost == nil { scheduleReconnect(in: &s, now: now) }
            return (outgoing, streams, withdrawn, s.endpoint)
        }
        guard let (outgoing, streams, withdrawn, endpoint) = lost else { return }
        streams.forEach { $0.close() }
        let error = HandoffError(.connectionUnavailable, "the connection to the handoff agent was lost (\(reason))")
        outgoing.forEach { $0.fail(error) }
        withdrawn.forEach { endpoint?.remoteActivityChanged(.withdrawn($0)) }
        if let onLost = options.onLost, !state.withLock({ $0.stopped }) { onLost(reason) }
    }

    private func scheduleReconnect(in s: inout State, now: Double) {
        s.reconnectAt = now + s.backoff
        reactor.arm(reconnectTimer, after: s.backoff)
        s.backoff = min(options.backoff.max, s.backoff * 2)
    }

    /// The reconnection timer fired: one attempt, unless stopped or
    /// connected meanwhile.
    func reconnectIfDue() {
        let due = state.withLock { s in !s.stopped && s.connection == nil && s.reconnectAt != nil }
        if due { reconnect() }
    }

    /// One attempt: connect, HELLO, WELCOME, then the current ADVERTISE.
    /// `detach` cuts its wait for WELCOME short (`handshakeCancel`).
    private func reconnect() {
        // Made under the lock that `detach` signals it under: a stop comes
        // before (no attempt) or after (it interrupts the attempt).
        let (stopped, cancel) = state.withLock { s -> (Bool, WakePipe?) in
            guard !s.stopped else { return (true, nil) }
            s.handshakeCancel = try? WakePipe()  // none: the handshake's deadline still bounds it
            return (false, s.handshakeCancel)
        }
        if stopped { return }
        let attempt: Result<(Int32, AgentWelcome), HandoffError>
        do {
            attempt = .success(try AgentHandshake.connect(path: options.socketPath, hello: hello, accountID: options.accountID,
                                                          timeout: options.handshakeTimeout, cancel: cancel,
                                                          stopped: { [self] in state.withLock { $0.stopped } }))
        } catch {
            attempt = .failure(error)
        }
        state.withLock { $0.handshakeCancel = nil }
        let (fd, welcome): (Int32, AgentWelcome)
        switch attempt {
        case .success(let made):
            (fd, welcome) = made
        case .failure(let error):
            state.withLock { s in
                s.lastFailure = error.message
                if !s.stopped { scheduleReconnect(in: &s, now: monotonicSeconds()) }
            }
            return
        }
        let accepted = state.withLock { s in
            guard !s.stopped else { return false }
            s.generation += 1
            s.connections += 1
            s.connection = Connection(fd: fd, generation: s.generation, welcome: welcome, since: monotonicSeconds())
            s.welcome = welcome
            s.reconnectAt = nil
            if let ad = s.advertisement { send(AgentFrame(.advertise(ad)), in: &s) }
            if let (id, payload) = s.indexed, welcome.revision >= Self.historyRevision {
                send(AgentFrame(.index(id, payload)), in: &s)
            }
            return true
        }
        if accepted { watchConnection() } else { close(fd) }
    }
}
