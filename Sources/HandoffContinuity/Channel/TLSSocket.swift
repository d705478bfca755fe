// SPDX-License-Identifier: MIT OR Apache-2.0
import COpenSSL
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

extension Deadline {
    /// Checks a caller's timeout (finite or infinite, not negative, not NaN).
    init(validating seconds: Double, _ what: String) throws(HandoffError) {
        guard seconds >= 0 else {
            throw HandoffError(.invalidArgument, "the timeout for \(what) is \(seconds): use a number of seconds >= 0")
        }
        self.init(after: seconds)
    }
}

/// Formats seconds for messages: "3 s", "0.25 s".
func secondsText(_ seconds: Double) -> String {
    seconds == seconds.rounded() && seconds < 1e9 ? "\(Int(seconds)) s" : "\(seconds) s"
}

func errnoText(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// A non-blocking TCP socket with its OpenSSL `SSL`, the blocking,
/// deadline-bounded operations on it, and its lifetime.
///
/// Threads: one handshake, one sender and one receiver may use it at once
/// (each OpenSSL call is made under `sslLock`, never while waiting in
/// poll); `close()` may come from any thread at any time. Closing while
/// another thread is inside an operation only marks the socket closed and
/// shuts it down, which wakes that thread's poll(); the SSL and the file
/// descriptor are freed by the last thread to leave, so a descriptor
/// number is never reused under a thread still polling it.
final class TLSSocket: @unchecked Sendable {
    // @unchecked: `ssl` and `bio` are only used under `sslLock`; lifetime
    // fields under `state`; the rest is immutable.

    enum Use: Hashable {
        case handshake, send, receive

        var doing: String {
            switch self {
            case .handshake: "handshaking"
            case .send: "sending"
            case .receive: "receiving"
            }
        }
    }

    let fd: Int32
    let peer: SocketAddress
    /// Keeps the SSL_CTX (and the object its callbacks reach) alive as long as the SSL.
    let context: TLSContext
    private let ssl: OpaquePointer
    private let bio: UnsafeMutablePointer<ChannelBIOState>

    private struct SSLState {
        /// SSL_ERROR_SSL or SSL_ERROR_SYSCALL happened: no SSL_shutdown.
        var fatal = false
        /// The peer's close_notify arrived (SSL_ERROR_ZERO_RETURN).
        var closeNotifyReceived = false
    }
    private let sslLock = Locked(SSLState())

    private struct LifeState {
        var closed = false
        var released = false
        var users = 0
        var busy: Set<Use> = []
    }
    private let state = Locked(LifeState())

    /// Takes ownership of `fd` (closed here if this fails).
    init(fd: Int32, peer: SocketAddress, context: TLSContext) throws(HandoffError) {
        let bio = UnsafeMutablePointer<ChannelBIOState>.allocate(capacity: 1)
        bio.initialize(to: ChannelBIOState(fd: fd))
        let ssl: OpaquePointer
        do {
            ssl = try context.makeSSL(bio: bio)
        } catch {
            bio.deallocate()
            Glibc.close(fd)
            throw error
        }
        self.fd = fd
        self.peer = peer
        self.context = context
        self.ssl = ssl
        self.bio = bio
    }

    deinit {
        let release = state.withLock { s in
            defer { s.released = true }
            return !s.released
        }
        if release { releaseResources(graceful: false) }
        bio.deallocate()
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    // MARK: Lifetime

    /// Runs `body` as a user of the socket: refused once closed, and only one
    /// thread per kind of use at a time.
    func withUse<R>(_ use: Use, _ body: () throws(HandoffError) -> R) throws(HandoffError) -> R {
        let refusal: HandoffError? = state.withLock { s in
            if s.closed {
                return HandoffError(.connectionUnavailable, "the connection with \(peer) is closed: connect again")
            }
            if s.busy.contains(use) {
                return HandoffError(.invalidState, "another thread is already \(use.doing) on the connection with \(peer): use one thread for each direction")
            }
            s.busy.insert(use)
            s.users += 1
            return nil
        }
        if let refusal { throw refusal }
        defer {
            let release = state.withLock { s in
                s.busy.remove(use)
                s.users -= 1
                guard s.closed, s.users == 0, !s.released else { return false }
                s.released = true
                return true
            }
            if release { releaseResources(graceful: true) }
        }
        return try body()
    }

    /// Closes the connection; idempotent, from any thread. A thread blocked
    /// in an operation on it wakes promptly and fails.
    func close() {
        enum Action { case nothing, release, wake(notify: Bool) }
        let action: Action = state.withLock { s in
            if s.closed { return .nothing }
            s.closed = true
            if s.users == 0 {
                s.released = true
                return .release
            }
            // This thread counts as a user until it is done with the SSL
            // and the descriptor, so neither is freed (nor the number
            // reused) under it when the other thread leaves meanwhile.
            s.users += 1
            // No close_notify in the middle of another thread's record.
            return .wake(notify: !s.busy.contains(.send) && !s.busy.contains(.handshake))
        }
        switch action {
        case .nothing: break
        case .release: releaseResources(graceful: true)
        case .wake(let notify):
            // The close_notify goes out before the FIN; the thread waiting
            // on the socket then wakes and fails.
            if notify { sendCloseNotify() }
            _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
            let release = state.withLock { s in
                s.users -= 1
                guard s.users == 0, !s.released else { return false }
                s.released = true
                return true
            }
            if release { releaseResources(graceful: true) }
        }
    }

    /// One non-blocking close_notify (best effort) after a completed
    /// handshake; nothing more is sent after it.
    private func sendCloseNotify() {
        sslLock.withLock { s in
            ERR_clear_error()
            if !s.fatal, SSL_is_init_finished(ssl) == 1 { _ = SSL_shutdown(ssl) }
            s.fatal = true
            _ = drainOpenSSLErrors()
        }
    }

    /// An orderly close that loses nothing already sent: close_notify, the
    /// TCP FIN, then whatever the peer still sends is read and dropped until
    /// it closes too (at most `timeout` seconds). Closing with unread bytes
    /// in the receive queue would make the kernel answer with a reset, which
    /// destroys our own last bytes still in flight. Call it when no other
    /// thread uses the socket.
    func closeLingering(timeout: Double) {
        let open = state.withLock { s in !s.closed && s.users == 0 }
        guard open else { return close() }
        sslLock.withLock { s in
            ERR_clear_error()
            if !s.fatal, SSL_is_init_finished(ssl) == 1 { _ = SSL_shutdown(ssl) }
            s.fatal = true  // close() below sends nothing more
            _ = drainOpenSSLErrors()
        }
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        let deadline = Deadline(after: timeout)
        var scratch = [UInt8](repeating: 0, count: 4096)
        while HandoffBase.wait(fd, for: Int16(POLLIN), until: deadline) == .ready {
            let n = recv(fd, &scratch, scratch.count, 0)
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n <= 0 { break }
        }
        close()
    }

    /// Closes with a TCP reset (SO_LINGER 0) instead of an orderly close:
    /// what a crashed peer looks like. For tests.
    func abort() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        state.withLock { s in
            if !s.released {
                _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                sslLock.withLock { $0.fatal = true }  // no close_notify
            }
        }
        close()
    }

    private func releaseResources(graceful: Bool) {
        sslLock.withLock { s in
            ERR_clear_error()
            if graceful, !s.fatal, SSL_is_init_finished(ssl) == 1 {
                // One non-blocking close_notify, best effort: the peer then
                // sees an orderly end rather than a truncation.
                _ = SSL_shutdown(ssl)
            }
            SSL_free(ssl)  // frees the BIO too
            _ = drainOpenSSLErrors()
        }
        Glibc.close(fd)
    }

    // MARK: OpenSSL calls

    private struct Outcome {
        var value: Int32
        var error: Int32 = SSL_ERROR_NONE
        var reason: String?
        var sawEOF = false
        var socketError: Int32 = 0
    }

    /// One OpenSSL call under the lock, with the thread's error queue
    /// cleared before and drained after, so SSL_get_error sees only this
    /// call's errors and nothing leaks to the next connection on this thread.
    private func call(_ body: (OpaquePointer) -> Int32) -> Outcome {
        sslLock.withLock { s in
            ERR_clear_error()
            bio.pointee.socketErrorReset()
            let value = body(ssl)
            guard value <= 0 else { return Outcome(value: value) }
            let error = SSL_get_error(ssl, value)
            let reason = drainOpenSSLErrors()
            if error == SSL_ERROR_SSL || error == SSL_ERROR_SYSCALL { s.fatal = true }
            if error == SSL_ERROR_ZERO_RETURN { s.closeNotifyReceived = true }
            return Outcome(value: value, error: error, reason: reason, sawEOF: bio.pointee.sawEOF, socketError: bio.pointee.error)
        }
    }

    private enum Wait { case ready, timedOut }

    /// Waits until the socket is ready for what OpenSSL asked (WANT_READ /
    /// WANT_WRITE), it is shut down, or the deadline passes.
    private func wait(for sslError: Int32, until deadline: Deadline) -> Wait {
        let events = Int16(sslError == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN)
        switch HandoffBase.wait(fd, for: events, until: deadline) {
        case .timedOut: return .timedOut
        case .ready, .cancelled, .error: return .ready  // an error: the next call reports it
        }
    }

    /// The error for a failed call that is not the peer's TLS at fault.
    private func transportError(_ outcome: Outcome, while doing: String) -> HandoffError {
        if isClosed {
            return HandoffError(.connectionUnavailable, "the connection with \(peer) was closed on this device while \(doing)")
        }
        if outcome.error == SSL_ERROR_ZERO_RETURN || (outcome.sawEOF && outcome.socketError == 0) {
            return HandoffError(.connectionUnavailable, "\(peer) closed the connection while \(doing): connect again")
        }
        if outcome.socketError != 0 {
            return HandoffError(.connectionUnavailable, "the connection with \(peer) failed while \(doing) (\(errnoText(outcome.socketError))): connect again")
        }
        return HandoffError(.connectionUnavailable, "the connection with \(peer) failed while \(doing) (\(outcome.reason ?? "TLS error")): connect again")
    }

    // MARK: Operations

    /// What a completed handshake agreed on.
    struct Agreement: Equatable {
        /// The key exchange group's name, e.g. "x25519".
        var group: String
        /// The protocol revision both ends speak (ALPN; none: revision 1).
        var revision: Int
    }

    /// Runs the TLS 1.3 handshake within `timeout` seconds and checks that
    /// it authenticated with the PSK and used (EC)DHE.
    func handshake(timeout: Double) throws(HandoffError) -> Agreement {
        let deadline = Deadline(after: timeout)
        return try withUse(.handshake) { () throws(HandoffError) -> Agreement in
            while true {
                switch try handshakeStepInUse() {
                case .done(let agreement):
                    return agreement
                case let step:
                    if wait(for: step == .wantWrite ? SSL_ERROR_WANT_WRITE : SSL_ERROR_WANT_READ, until: deadline) == .timedOut {
                        throw HandoffError(.connectionUnavailable, "\(peer) did not complete the secure handshake within \(secondsText(timeout)): check that Handoff runs on the other device")
                    }
                }
            }
        }
    }

    enum HandshakeStep: Equatable {
        case done(Agreement)
        /// Call again once the socket is readable (or writable).
        case wantRead, wantWrite
    }

    /// One non-blocking step of the handshake, for a caller that waits on
    /// many sockets at once (the server's admission thread). Errors as
    /// `handshake`.
    func handshakeStep() throws(HandoffError) -> HandshakeStep {
        try withUse(.handshake) { () throws(HandoffError) -> HandshakeStep in try handshakeStepInUse() }
    }

    /// Whether the peer's close_notify has arrived: for tests.
    var receivedCloseNotify: Bool {
        sslLock.withLock { $0.closeNotifyReceived }
    }

    /// Bytes received and sent so far, e.g. how far a handshake has got.
    var traffic: (received: Int, sent: Int) {
        sslLock.withLock { _ in (bio.pointee.received, bio.pointee.sent) }
    }

    private func handshakeStepInUse() throws(HandoffError) -> HandshakeStep {
        if isClosed {
            throw HandoffError(.connectionUnavailable, "the connection with \(peer) was closed on this device during the handshake")
        }
        let outcome = call { SSL_do_handshake($0) }
        if outcome.value != 1 {
            switch outcome.error {
            case SSL_ERROR_WANT_READ: return .wantRead
            case SSL_ERROR_WANT_WRITE: return .wantWrite
            case SSL_ERROR_SSL where !outcome.sawEOF && outcome.socketError == 0 && !isClosed:
                throw HandoffError(.handoffFailed, "the secure channel with \(peer) could not be established (\(outcome.reason ?? "TLS handshake failure")): the other device is not signed in to this account")
            default:
                throw transportError(outcome, while: "handshaking")
            }
        }
        let (authenticated, group, revision) = sslLock.withLock { _ -> (Bool, String?, Int?) in
            // SSL_get_negotiated_group is a macro over SSL_ctrl.
            let nid = SSL_ctrl(ssl, SSL_CTRL_GET_NEGOTIATED_GROUP, 0, nil)
            let name = nid > 0 ? SSL_group_to_name(ssl, Int32(truncatingIfNeeded: nid)).map { String(cString: $0) } : nil
            var alpn: UnsafePointer<UInt8>?
            var alpnLength: UInt32 = 0
            SSL_get0_alpn_selected(ssl, &alpn, &alpnLength)
            let revision: Int? = alpn.map { ProtocolRevision.revision(alpnID: UnsafeBufferPointer(start: $0, count: Int(alpnLength))) }
                ?? ProtocolRevision.unannounced
            return (SSL_session_reused(ssl) == 1, name, revision)
        }
        guard authenticated else {
            throw HandoffError(.handoffFailed, "\(peer) did not authenticate with the account key: the other device is not signed in to this account")
        }
        guard let group else {
            throw HandoffError(.handoffFailed, "\(peer) completed a handshake without an (EC)DHE key exchange, which the channel requires")
        }
        // A server's ALPN choice we did not offer never completes a
        // handshake (OpenSSL refuses it), so nil here is a foreign id.
        guard let revision, context.revisions.contains(revision) else {
            let ours = context.revisions
            throw HandoffError(.handoffFailed,
                "\(peer) speaks no protocol revision this device does (\(ours.lowerBound)...\(ours.upperBound)): update the older of the two devices")
        }
        return .done(Agreement(group: group, revision: revision))
    }

    /// One SSL_read of at most `capacity` bytes; waits until something
    /// arrives or the deadline passes (`.timedOut`, the socket stays open).
    /// Call inside `withUse(.receive)`.
    func read(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int, until deadline: Deadline,
              timeoutMessage: @autoclosure () -> String) throws(HandoffError) -> Int {
        while true {
            if isClosed {
                throw HandoffError(.connectionUnavailable, "the connection with \(peer) was closed on this device while receiving")
            }
            let outcome = call { SSL_read($0, buffer, Int32(clamping: capacity)) }
            if outcome.value > 0 { return Int(outcome.value) }
            switch outcome.error {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                if wait(for: outcome.error, until: deadline) == .timedOut {
                    throw HandoffError(.timedOut, timeoutMessage())
                }
            default:
                let error = transportError(outcome, while: "receiving")
                close()
                throw error
            }
        }
    }

    /// `read`, then more SSL_reads for as long as they complete at once and
    /// a whole record still fits: bulk data in fewer, larger pieces. An
    /// error after the first piece is left for the next call to report.
    func readBatch(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int, until deadline: Deadline,
                   timeoutMessage: @autoclosure () -> String) throws(HandoffError) -> Int {
        var total = try read(into: buffer, capacity: capacity, until: deadline, timeoutMessage: timeoutMessage())
        while capacity - total >= Self.maxRecord && !isClosed {
            let outcome = call { SSL_read($0, buffer + total, Int32(clamping: capacity - total)) }
            guard outcome.value > 0 else { break }
            total += Int(outcome.value)
        }
        return total
    }

    /// A TLS record's largest plaintext.
    static let maxRecord = 16_384

    /// Writes all of `bytes`, waiting while the peer's window is full. Any
    /// failure, including the deadline, closes the socket: part of the
    /// bytes may be on their way and the stream cannot be resynchronised.
    /// Call inside `withUse(.send)`.
    func write(_ bytes: [UInt8], until deadline: Deadline, timeoutMessage: @autoclosure () -> String) throws(HandoffError) {
        guard !bytes.isEmpty else { return }
        var failure: HandoffError?
        bytes.withUnsafeBytes { buffer in
            do throws(HandoffError) {
                try write(buffer.baseAddress!, count: buffer.count, until: deadline, timeoutMessage: timeoutMessage())
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// `write` from memory the caller holds: the streams' copy-free path.
    func write(_ bytes: UnsafeRawPointer, count: Int, until deadline: Deadline,
               timeoutMessage: @autoclosure () -> String) throws(HandoffError) {
        var offset = 0
        while offset < count {
            if isClosed {
                throw HandoffError(.connectionUnavailable, "the connection with \(peer) was closed on this device while sending")
            }
            let outcome = call { SSL_write($0, bytes + offset, Int32(clamping: count - offset)) }
            if outcome.value > 0 {
                offset += Int(outcome.value)
                continue
            }
            switch outcome.error {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                if wait(for: outcome.error, until: deadline) == .timedOut {
                    close()
                    throw HandoffError(.timedOut, timeoutMessage())
                }
            default:
                let error = transportError(outcome, while: "sending")
                close()
                throw error
            }
        }
    }
}

extension ChannelBIOState {
    mutating func socketErrorReset() { error = 0 }
}
