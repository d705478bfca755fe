// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The sending side of the exchange, run on a channel connection's thread
/// after the handshake: answer FETCH through the app's main thread within
/// the timeout, pass CONFIRM on.
///
/// Lifecycle (docs/PROTOCOL.md §6): a connection with no exchange
/// outstanding is idle, and the server may close it for a newcomer; one
/// idle for `ChannelLimits.idleTimeout` since the last exchange that
/// counted is closed (close_notify, then TCP). Only a FETCH answered with
/// a payload, or a CONFIRM of an activity this device served, counts: a
/// request for an id never served does not extend a connection's life.
struct ExchangeServer: Sendable {
    let endpoint: @Sendable () -> (any ContinuityEndpoint)?
    let fetchTimeout: Double
    /// Where the streams this side accepts are registered.
    let streams: StreamRegistry
    /// Whether a connection from this peer is served now (the person's
    /// settings: paused, or the device not offered to; PROTOCOL §7
    /// "Gating"). Asked for each FETCH and stream, so a change applies to
    /// connections already open.
    var serves: @Sendable (SocketAddress) -> Bool = { _ in true }
    /// The activities recently served, shared by all connections: a
    /// CONFIRM may come on another connection than its FETCH.
    let served = ServedActivities()
    /// Describes documents for fetchers of revision 4 and serves their
    /// bytes (PROTOCOL.md §12); nil: payloads go as the app made them.
    var documents: DocumentSender?

    func serve(_ connection: ChannelConnection) {
        defer { connection.close() }
        var idleUntil = monotonicSeconds() + connection.limits.idleTimeout
        while true {
            connection.markIdle()
            let left = idleUntil - monotonicSeconds()
            guard left > 0 else { return }  // idle too long: close
            let message: ExchangeMessage
            do {
                message = try ExchangeMessage(try connection.receive(timeout: left), revision: connection.revision)
            } catch {
                if error.code == .malformedData {
                    try? connection.send(ExchangeMessage.error(code: HandoffError.Code.handoffFailed.rawValue,
                                                               message: error.message).frame, timeout: 1)
                }
                return
            }
            connection.markBusy()
            switch message {
            case .fetch(let id):
                var reply = serves(connection.peer) ? answer(id) : Self.refusal
                if case .payload(let bytes) = reply, let documents, connection.revision >= ExchangeMessage.Kind.documentOpen.revision {
                    switch documents.describe(bytes) {
                    case .success(let described): reply = .payload(described)
                    case .failure(let error): reply = .error(code: error.asUserActivityError.code.rawValue, message: error.message)
                    }
                }
                if case .payload = reply {
                    served.insert(id)
                    idleUntil = monotonicSeconds() + connection.limits.idleTimeout
                }
                do { try connection.send(reply.frame, timeout: fetchTimeout) } catch { return }
            case .confirm(let id):
                if served.contains(id) { idleUntil = monotonicSeconds() + connection.limits.idleTimeout }
                endpoint()?.activityWasContinued(id)
            case .streamOpen(let id):
                guard serves(connection.peer) else {
                    do { try connection.send(Self.refusal.frame, timeout: fetchTimeout) } catch { return }
                    continue
                }
                // Accepted, the connection carries the stream until it ends.
                guard serveStream(id, on: connection) else { return }
            case .documentOpen(let id, let sha256):
                guard serves(connection.peer), let documents else {
                    do { try connection.send(Self.refusal.frame, timeout: fetchTimeout) } catch { return }
                    continue
                }
                guard documents.serve(id, sha256: sha256, on: connection, timeout: fetchTimeout) else { return }
            case .payload, .error, .streamAccepted, .documentAccepted:
                return  // not something a receiver sends
            }
        }
    }

    /// Offers the app a continuation stream for activity `id`. Returns
    /// whether the connection can serve more requests: true after a
    /// refusal; false after the stream (which ends the connection).
    private func serveStream(_ id: ActivityID, on connection: ChannelConnection) -> Bool {
        func refuse(_ code: HandoffError.Code, _ message: String) -> Bool {
            (try? connection.send(ExchangeMessage.error(code: code.rawValue, message: message).frame, timeout: fetchTimeout)) != nil
        }
        guard let endpoint = endpoint() else { return refuse(.handoffFailed, "the application has stopped") }
        let pair: LocalSocketPair
        do { pair = try LocalSocketPair() } catch { return refuse(.handoffFailed, error.message) }
        let answer = OneShot<Result<Void, HandoffError>>()
        // Whether this thread still waits: the app hands the stream to its
        // delegate only if so, never after the timeout below.
        let waiting = Locked(true)
        let streams = self.streams
        endpoint.acceptStream(id, pair.host) { result in
            let taken = waiting.withLock { w in defer { w = false }; return w }
            if taken {
                // Accepted: the host holds its end from now on.
                if case .success = result { streams.willStart() }
                answer.fulfil(result)
            }
            return taken
        }
        _ = answer.wait(seconds: fetchTimeout)
        let timedOut = waiting.withLock { w in defer { w = false }; return w }
        guard !timedOut, let result = answer.wait(seconds: 0), case .success = result else {
            close(pair.library)
            if timedOut {
                return refuse(.remoteApplicationTimedOut, "the application did not take the stream within \(fetchTimeout) s (is its main loop dispatching?)")
            }
            if case .failure(let error)? = answer.wait(seconds: 0) {
                let e = error.asUserActivityError
                return refuse(e.code, e.message)
            }
            return refuse(.handoffFailed, "the stream was refused")
        }
        do {
            try connection.send(ExchangeMessage.streamAccepted.frame, timeout: fetchTimeout)
            let buffered = try connection.takeBufferedBytes()
            StreamPump.run(connection: connection, local: pair.library, buffered: buffered, registry: streams)
        } catch {
            streams.abandon()
            close(pair.library)  // the reserve is unread: the host's reads fail (ECONNRESET)
        }
        return false
    }

    /// What a device that is not served hears: the error of an activity
    /// no longer offered (4608), so it learns nothing more.
    static let refusal = ExchangeMessage.error(code: HandoffError.Code.handoffFailed.rawValue,
                                               message: "the activity is not offered to this device")

    /// The payload from the app's main thread, or the reason there is none.
    private func answer(_ id: ActivityID) -> ExchangeMessage {
        guard let endpoint = endpoint() else {
            return .error(code: HandoffError.Code.handoffFailed.rawValue, message: "the application has stopped")
        }
        let result = OneShot<Result<[UInt8], HandoffError>>()
        endpoint.provideActivity(id) { result.fulfil($0) }
        switch result.take(seconds: fetchTimeout) {
        case .success(let bytes)?:
            return .payload(bytes)
        case .failure(let error)?:
            let e = error.asUserActivityError
            return .error(code: e.code.rawValue, message: e.message)
        case nil:
            return .error(code: HandoffError.Code.remoteApplicationTimedOut.rawValue,
                          message: "the application did not hand over the activity within \(fetchTimeout) s (is its main loop dispatching?)")
        }
    }
}

/// The ids of the activities served lately (a bounded, oldest-first set).
final class ServedActivities: Sendable {
    static let capacity = 64
    private let ids = Locked<[ActivityID]>([])

    func insert(_ id: ActivityID) {
        ids.withLock { list in
            list.removeAll { $0 == id }
            list.append(id)
            if list.count > Self.capacity { list.removeFirst(list.count - Self.capacity) }
        }
    }

    func contains(_ id: ActivityID) -> Bool { ids.withLock { $0.contains(id) } }
}
