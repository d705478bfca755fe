// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Two ends of the channel over real sockets on 127.0.0.1.
@Suite struct ChannelConnectionTests {
    @Test func framesTravelBothWaysOverTLS13WithAKeyExchange() throws {
        let serverGroups = ChannelRecorder<String?>()
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { connection in
            serverGroups.append(connection.keyExchangeGroup)
            ChannelTest.echo(connection)
        }
        defer { server.stop() }
        let client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        defer { client.close() }
        #expect(client.keyExchangeGroup == "x25519")
        #expect(client.peer == ChannelTest.address(server))

        let frames = [
            Frame(type: 0, payload: []),
            Frame(type: 1, payload: [0xAB]),
            Frame(type: 2, payload: (0..<65_535).map { UInt8(truncatingIfNeeded: $0 &* 31) }),  // N = 65 536, the limit
            Frame(type: 3, payload: Array(repeating: 0, count: 16_380)),  // straddles TLS records
        ]
        for frame in frames {
            try client.send(frame, timeout: 5)
            #expect(try client.receive(timeout: 5) == frame)
        }
        // Many frames in flight before the first answer is read.
        for i in 0..<300 { try client.send(Frame(type: UInt8(i % 256), payload: Array("frame \(i)".utf8)), timeout: 5) }
        for i in 0..<300 {
            #expect(try client.receive(timeout: 5) == Frame(type: UInt8(i % 256), payload: Array("frame \(i)".utf8)))
        }
        #expect(serverGroups.all == ["x25519"])
    }

    @Test func theServerSendsFirstAndSeesTheClientsAddress() throws {
        let peers = ChannelRecorder<SocketAddress>()
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { connection in
            peers.append(connection.peer)
            try? connection.send(Frame(type: 9, payload: Array("hello".utf8)), timeout: 5)
            _ = try? connection.receive(timeout: 5)
        }
        defer { server.stop() }
        let client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        #expect(try client.receive(timeout: 5) == Frame(type: 9, payload: Array("hello".utf8)))
        client.close()
        #expect(peers.all.first?.host == "127.0.0.1")
    }

    @Test func aWrongKeyFailsTheHandshakeAndTheHandlerNeverRuns() throws {
        let handled = ChannelRecorder<Bool>()
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { _ in handled.append(true) }
        defer { server.stop() }
        let error = ChannelTest.failure { () throws(HandoffError) in
            try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.otherKey)
        }
        #expect(error?.code == .handoffFailed)
        #expect(error?.message.contains("not signed in to this account") == true)
        #expect(ChannelTest.eventually { server.counts.pending == 0 })
        // The right key still works afterwards.
        let client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        client.close()
        #expect(ChannelTest.eventually { handled.count == 1 })
        #expect(handled.count == 1)
    }

    @Test func anIdentityWithoutTheHandoffPrefixIsRefused() throws {
        let handled = ChannelRecorder<Bool>()
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { _ in handled.append(true) }
        defer { server.stop() }
        let error = ChannelTest.failure { () throws(HandoffError) in
            try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key, limits: ChannelLimits(),
                                          identity: Array("handoff2.0123456789abcdef0123456789abcdef".utf8))
        }
        #expect(error?.code == .handoffFailed)
        #expect(handled.count == 0)
    }

    @Test func aClosedPortIsUnavailableAtOnce() {
        let start = monotonicSeconds()
        let error = ChannelTest.failure { () throws(HandoffError) in
            try ChannelConnection.connect(to: SocketAddress(host: "127.0.0.1", port: ChannelTest.closedPort()), psk: ChannelTest.key)
        }
        #expect(error?.code == .connectionUnavailable)
        #expect(ChannelTest.since(start) < 2)
    }

    @Test func aPeerThatNeverSpeaksTLSTimesTheHandshakeOut() {
        let listener = ChannelTest.rawListener()  // the kernel completes TCP; nobody answers
        defer { close(listener) }
        var limits = ChannelLimits()
        limits.handshakeTimeout = 0.3
        let start = monotonicSeconds()
        let error = ChannelTest.failure { () throws(HandoffError) in
            try ChannelConnection.connect(to: SocketAddress(host: "127.0.0.1", port: ChannelTest.localPort(listener)), psk: ChannelTest.key, limits: limits)
        }
        #expect(error?.code == .connectionUnavailable)
        #expect(ChannelTest.since(start) < 2.5)
    }

    @Test func anOversizeLengthIsRefusedBeforeReadingAndClosesTheConnection() throws {
        let serverSaw = OneShot<HandoffError.Code?>()
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { connection in
            try? connection.sendRaw([0xFF, 0xFF, 0xFF, 0xFF], timeout: 5)  // announces 4 GiB, sends nothing more
            serverSaw.fulfil(Result { () throws(HandoffError) in try connection.receive(timeout: 10) }.channelErrorCode)
        }
        defer { server.stop() }
        let client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        // Refused from the prefix alone: waiting for (or allocating) the
        // payload would end in .timedOut instead.
        let error = ChannelTest.failure { () throws(HandoffError) in try client.receive(timeout: 10) }
        #expect(error?.code == .malformedData)
        #expect(error?.message.contains("4294967295") == true)
        #expect(ChannelTest.failure { () throws(HandoffError) in try client.receive(timeout: 1) }?.code == .connectionUnavailable)
        #expect(ChannelTest.failure { () throws(HandoffError) in try client.send(Frame(type: 1, payload: []), timeout: 1) }?.code == .connectionUnavailable)
        #expect(serverSaw.wait(seconds: 5) == .some(.connectionUnavailable), "the peer sees the connection closed")
    }

    @Test(arguments: [[0, 0, 0, 0] as [UInt8], [0x00, 0x01, 0x00, 0x01]])
    func lengthsOutsideOneToTheLimitAreMalformed(_ prefix: [UInt8]) throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { connection in
            try? connection.sendRaw(prefix + [1, 2, 3], timeout: 5)
            _ = try? connection.receive(timeout: 10)
        }
        defer { server.stop() }
        let client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        #expect(ChannelTest.failure { () throws(HandoffError) in try client.receive(timeout: 10) }?.code == .malformedData)
    }

    @Test func aTruncatedFrameThenEndOfStreamIsUnavailable() throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { connection in
            try? connection.sendRaw([0, 0, 0, 10, 1, 2, 3], timeout: 5)  // 3 of 10 bytes, then close
        }
        defer { server.stop() }
        let client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        #expect(ChannelTest.failure { () throws(HandoffError) in try client.receive(timeout: 10) }?.code == .connectionUnavailable)
    }

    @Test(arguments: [false, true])
    func aPeerGoingAwayMidReceiveIsUnavailable(reset: Bool) throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { connection in
            usleep(200_000)
            if reset { connection.abort() } else { connection.close() }
        }
        defer { server.stop() }
        let client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        let start = monotonicSeconds()
        #expect(ChannelTest.failure { () throws(HandoffError) in try client.receive(timeout: 10) }?.code == .connectionUnavailable)
        #expect(ChannelTest.since(start) < 5)
    }

    @Test func closeFromAnotherThreadWakesABlockedReceive() throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { connection in
            _ = try? connection.receive(timeout: 10)
        }
        defer { server.stop() }
        let client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        let start = monotonicSeconds()
        let result = ChannelTest.onThread { Result { () throws(HandoffError) in try client.receive(timeout: 10) }.channelErrorCode }
        usleep(150_000)
        client.close()
        #expect(result.wait(seconds: 5) == .some(.connectionUnavailable))
        #expect(ChannelTest.since(start) < 5)
        client.close()  // idempotent
    }

    @Test func aReceiveTimeoutKeepsTheConnectionAndAPartialFrame() throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { connection in
            let bytes = Frame(type: 5, payload: Array(0..<100)).encoded()
            try? connection.sendRaw(Array(bytes[..<50]), timeout: 5)
            usleep(400_000)
            try? connection.sendRaw(Array(bytes[50...]), timeout: 5)
            _ = try? connection.receive(timeout: 10)
        }
        defer { server.stop() }
        let client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        #expect(ChannelTest.failure { () throws(HandoffError) in try client.receive(timeout: 0.1) }?.code == .timedOut)
        #expect(try client.receive(timeout: 5) == Frame(type: 5, payload: Array(0..<100)))
    }

    @Test func oneThreadSendsWhileAnotherReceives() throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key, onConnection: ChannelTest.echo)
        defer { server.stop() }
        let client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        defer { client.close() }
        let count = 500
        let sent = ChannelTest.onThread { () -> Bool in
            for i in 0..<count {
                guard (try? client.send(Frame(type: 1, payload: Array(repeating: UInt8(i % 256), count: i * 37 % 3000)), timeout: 5)) != nil else { return false }
            }
            return true
        }
        for i in 0..<count {
            #expect(try client.receive(timeout: 5) == Frame(type: 1, payload: Array(repeating: UInt8(i % 256), count: i * 37 % 3000)))
        }
        #expect(sent.wait(seconds: 5) == true)
    }

    @Test func framesAboveTheLimitAreNotSent() throws {
        var limits = ChannelLimits()
        limits.maxFrameSize = 100
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key, limits: limits, onConnection: ChannelTest.echo)
        defer { server.stop() }
        let client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key, limits: limits)
        #expect(ChannelTest.failure { () throws(HandoffError) in try client.send(Frame(type: 1, payload: Array(repeating: 0, count: 100)), timeout: 1) }?.code == .invalidArgument)
        try client.send(Frame(type: 1, payload: Array(repeating: 0, count: 99)), timeout: 1)
        #expect(try client.receive(timeout: 5).payload.count == 99)
        // The server's own check: a peer ignoring the limit is cut off.
        try client.sendRaw(Frame(type: 1, payload: Array(repeating: 0, count: 100)).encoded(), timeout: 1)
        #expect(ChannelTest.failure { () throws(HandoffError) in try client.receive(timeout: 5) }?.code == .connectionUnavailable)
    }
}
