// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
@testable import HandoffRelay
import HandoffTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The seam the relay hands the channel (PROTOCOL.md §11 "Pipes",
/// docs/agent.md §12): the real TLS 1.3 PSK channel (§6) over two
/// `RelayPipe`s joined by an in-memory broker, through
/// `RelayStreamBridge` socket pairs. The broker sees only what the pipes
/// publish; one changed byte ends the TLS session, never a crash or a hang.
@Suite(.serialized) struct RelayChannelTests {
    /// The relay's side: two bridges and two pipes, pumped on one thread
    /// (as `hoff-relay` will), frames passed through the codec; `tamper`
    /// may change a frame on its way to the acceptor.
    final class Relay: @unchecked Sendable {
        // @unchecked: everything below is touched by the relay thread only,
        // but `published` (under `lock`) and `stop`.
        let clientFD: Int32, serverFD: Int32
        private var opener: RelayPipe, acceptor: RelayPipe
        private var openerBridge: RelayStreamBridge, acceptorBridge: RelayStreamBridge
        private let tamper: @Sendable (inout RelayPipeFrame) -> Void
        let published = Locked<[UInt8]>([])
        let stop = Locked(false)
        private var thread: pthread_t?

        init(tamper: @escaping @Sendable (inout RelayPipeFrame) -> Void = { _ in }) throws {
            let id = RelayPipeID.random()
            opener = RelayPipe(id: id, role: .opener, now: monotonicSeconds())
            acceptor = RelayPipe(id: id, role: .acceptor, now: monotonicSeconds())
            (clientFD, openerBridge) = try RelayStreamBridge.pair()
            (serverFD, acceptorBridge) = try RelayStreamBridge.pair()
            self.tamper = tamper
            thread = startJoinableThread(named: "test-relay") { [self] in run() }
        }

        private func run() {
            let end = monotonicSeconds() + 30
            while !stop.withLock({ $0 }) && monotonicSeconds() < end {
                openerBridge.pump(&opener)
                acceptorBridge.pump(&acceptor)
                let now = monotonicSeconds()
                for var frame in opener.poll(now: now) {
                    let bytes = frame.encoded()
                    published.withLock { $0 += bytes }
                    frame = try! RelayPipeFrame.decode(bytes, expectedPipe: frame.pipe).get()
                    tamper(&frame)
                    _ = acceptor.receive(frame, now: now)
                }
                for frame in acceptor.poll(now: now) {
                    let bytes = frame.encoded()
                    published.withLock { $0 += bytes }
                    _ = opener.receive(try! RelayPipeFrame.decode(bytes, expectedPipe: frame.pipe).get(), now: now)
                }
                openerBridge.pump(&opener)
                acceptorBridge.pump(&acceptor)
                var fds = [pollfd(fd: openerBridge.fd, events: openerBridge.pollEvents(opener), revents: 0),
                           pollfd(fd: acceptorBridge.fd, events: acceptorBridge.pollEvents(acceptor), revents: 0)]
                _ = poll(&fds, 2, 5)
            }
        }

        func finish() {
            stop.withLock { $0 = true }
            if let thread { pthread_join(thread, nil) }
            openerBridge.close()
            acceptorBridge.close()
        }
    }

    static let psk = AccountFixtures.sequentialKey.derived.channelPSK
    static let peer = SocketAddress(path: PeerPathAddress(kind: .relay, tag: "0123456789abcdef0123456789abcdef"))

    /// The server's side on its own thread: handshake, then echo one frame.
    static func serve(_ fd: Int32, result: Locked<HandoffError?>) -> pthread_t? {
        startJoinableThread(named: "test-server") {
            do throws(HandoffError) {
                let connection = try ChannelConnection.accept(overStream: fd, peer: peer, psk: psk)
                let frame = try connection.receive(timeout: 10)
                try connection.send(frame, timeout: 10)
                _ = try? connection.receive(timeout: 10)  // until the client closes
            } catch {
                result.withLock { $0 = error }
            }
        }
    }

    static func client(_ fd: Int32) throws(HandoffError) -> ChannelConnection {
        try ChannelConnection.connect(overStream: fd, peer: peer, psk: psk)
    }

    @Test func theTLSChannelRunsOverTwoPipesAndTheBrokerSeesOnlyCiphertext() throws {
        let relay = try Relay()
        defer { relay.finish() }
        let serverError = Locked<HandoffError?>(nil)
        let server = Self.serve(relay.serverFD, result: serverError)
        // A frame of 60,000 bytes with a canary: several pipe frames each way.
        let canary = Array("canary-7f3a-relay-title".utf8)
        let payload = (0..<3000).flatMap { _ in canary }.prefix(60_000)
        let connection = try Self.client(relay.clientFD)
        try connection.send(Frame(type: 0x02, payload: Array(payload)), timeout: 10)
        let echo = try connection.receive(timeout: 10)
        connection.close()
        if let server { pthread_join(server, nil) }
        #expect(echo.type == 0x02 && echo.payload == Array(payload))
        #expect(serverError.withLock { $0 } == nil)
        let wire = relay.published.withLock { $0 }
        #expect(wire.count > 2 * payload.count)
        #expect(!Self.contains(wire, canary), "the canary crossed the broker in the clear")
    }

    @Test func aChangedByteOnTheBrokerEndsTheTLSSession() throws {
        // Flip one byte of the first large DATA frame after the handshake.
        let flipped = Locked(false)
        let relay = try Relay { frame in
            guard frame.kind == .data, frame.payload.count > 1000, !flipped.withLock({ $0 }) else { return }
            flipped.withLock { $0 = true }
            frame.payload[500] ^= 0x01
        }
        defer { relay.finish() }
        let serverError = Locked<HandoffError?>(nil)
        let server = Self.serve(relay.serverFD, result: serverError)
        let connection = try Self.client(relay.clientFD)
        let payload = [UInt8](repeating: 0x41, count: 20_000)
        var clientError: HandoffError?
        do {
            try connection.send(Frame(type: 0x02, payload: payload), timeout: 10)
            _ = try connection.receive(timeout: 10)
        } catch {
            clientError = error
        }
        connection.close()
        if let server { pthread_join(server, nil) }
        #expect(flipped.withLock { $0 })
        #expect(serverError.withLock { $0 } != nil, "the server accepted a changed record")
        #expect(clientError != nil, "the client got an answer to a changed record")
    }

    @Test func anotherAccountsKeyFailsTheHandshakeOverAPipe() throws {
        let relay = try Relay()
        defer { relay.finish() }
        let server = startJoinableThread(named: "test-server") { [serverFD = relay.serverFD] in
            _ = try? ChannelConnection.accept(overStream: serverFD, peer: Self.peer, psk: Self.psk)
        }
        var failure: HandoffError?
        do {
            _ = try ChannelConnection.connect(overStream: relay.clientFD, peer: Self.peer,
                                              psk: AccountFixtures.key(seed: 9).derived.channelPSK)
        } catch {
            failure = error
        }
        if let server { pthread_join(server, nil) }
        #expect(failure?.code == .handoffFailed, "\(String(describing: failure))")
        #expect(failure?.message.contains("relay:01234567") == true, "\(String(describing: failure))")
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
