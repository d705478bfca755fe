// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The server before and after authentication: hostile input, limits, stop.
@Suite struct ChannelServerTests {
    @Test func garbageAndHTTPDoNotHurtTheServer() throws {
        let handled = ChannelRecorder<Bool>()
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { connection in
            handled.append(true)
            ChannelTest.echo(connection)
        }
        defer { server.stop() }
        let inputs: [[UInt8]] = [
            (0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) },
            Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8),
            [0x16, 0x03, 0x01, 0xFF, 0xFF] + Array(repeating: 0x01, count: 100),  // a TLS record header claiming 64 KiB
            [0x16, 0x03, 0x03, 0x00, 0x04, 0x01, 0x00, 0x00, 0x00],  // an empty ClientHello
        ]
        for input in inputs {
            let fd = ChannelTest.rawConnect(server.port)
            ChannelTest.rawSend(fd, input)
            #expect(ChannelTest.peerCloses(fd, within: 5), "the server drops a peer that does not speak TLS")
            close(fd)
        }
        #expect(handled.count == 0)
        let client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        defer { client.close() }
        try client.send(Frame(type: 1, payload: [1, 2, 3]), timeout: 5)
        #expect(try client.receive(timeout: 5) == Frame(type: 1, payload: [1, 2, 3]))
        #expect(handled.count == 1)
    }

    @Test func aSilentClientIsDroppedAfterTheHandshakeTimeout() throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key,
                                       limits: ChannelTest.limits(handshakeTimeout: 2)) { _ in }
        defer { server.stop() }
        let fd = ChannelTest.rawConnect(server.port)
        defer { close(fd) }
        #expect(ChannelTest.eventually { server.counts.pending == 1 })
        #expect(ChannelTest.peerCloses(fd, within: 20))
        #expect(ChannelTest.eventually { server.counts.pending == 0 })
    }

    @Test func silentConnectionsBeyondThePendingLimitAreShedAndARealClientIsServed() throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key,
                                       limits: ChannelTest.limits(handshakeTimeout: 0.5, maxPending: 8), onConnection: ChannelTest.echo)
        defer { server.stop() }
        let silent = (0..<20).map { _ in ChannelTest.rawConnect(server.port) }
        defer { silent.forEach { close($0) } }
        #expect(server.counts.pending <= 8)
        // Every silent connection ends: shed at once or timed out.
        for fd in silent { #expect(ChannelTest.peerCloses(fd, within: 5)) }
        #expect(server.counts.pending <= 8)
        // A real client gets through (retrying while the slots are full).
        var client: ChannelConnection?
        let end = monotonicSeconds() + 10
        while client == nil && monotonicSeconds() < end {
            do throws(HandoffError) {
                client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
            } catch {
                #expect(error.code == .connectionUnavailable)
                usleep(50_000)
            }
        }
        let connected = try #require(client)
        defer { connected.close() }
        try connected.send(Frame(type: 2, payload: [9]), timeout: 5)
        #expect(try connected.receive(timeout: 5) == Frame(type: 2, payload: [9]))
    }

    @Test func whilePendingSlotsAreFullAGenuineNewcomerShedsASilentHolderNotItself() throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key,
                                       limits: ChannelTest.limits(handshakeTimeout: 60, maxPending: 8), onConnection: ChannelTest.echo)
        defer { server.stop() }
        // Eight silent holders from 127.0.0.2, which no deadline ends before 60 s.
        let holders = (0..<8).map { _ in ChannelTest.rawConnect(server.port, from: 2) }
        defer { holders.forEach { close($0) } }
        #expect(ChannelTest.eventually(20) { server.counts.pending == 8 })
        // The newcomer waits in the backlog; a holder is shed for it.
        let client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key, limits: ChannelTest.limits(handshakeTimeout: 20))
        defer { client.close() }
        try client.send(Frame(type: 3, payload: [3]), timeout: 5)
        #expect(try client.receive(timeout: 5) == Frame(type: 3, payload: [3]))
        #expect(holders.contains { ChannelTest.peerCloses($0, within: 0.5) })
        #expect(server.counts.pending <= 8)
    }

    @Test func theMostRepresentedSourceGivesWayAndNewcomersAreKept() throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key,
                                       limits: ChannelTest.limits(handshakeTimeout: 60, maxPending: 4), onConnection: ChannelTest.echo)
        defer { server.stop() }
        let crowd = (0..<3).map { _ in ChannelTest.rawConnect(server.port, from: 2) }
        defer { crowd.forEach { close($0) } }
        let lone = ChannelTest.rawConnect(server.port, from: 3)
        defer { close(lone) }
        #expect(ChannelTest.eventually(20) { server.counts.pending == 4 })
        // Each newcomer from 127.0.0.4 sheds one of 127.0.0.2's three.
        let newcomers = (0..<2).map { _ in ChannelTest.rawConnect(server.port, from: 4) }
        defer { newcomers.forEach { close($0) } }
        #expect(ChannelTest.eventually(20) { crowd.filter { ChannelTest.peerCloses($0, within: 0.05) }.count >= 2 })
        #expect(server.counts.pending == 4)
        #expect(!ChannelTest.peerCloses(lone, within: 0.2))
        for fd in newcomers { #expect(!ChannelTest.peerCloses(fd, within: 0.2)) }
    }

    @Test func aConnectionSilentPastTheFirstBytesDeadlineIsDroppedWhileAStartedOneStays() throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key,
                                       limits: ChannelTest.limits(handshakeTimeout: 60, firstBytes: 0.3)) { _ in }
        defer { server.stop() }
        let started = ChannelTest.rawConnect(server.port)
        defer { close(started) }
        ChannelTest.rawSend(started, [0x16, 0x03, 0x01])  // the start of a ClientHello record
        let silent = ChannelTest.rawConnect(server.port)
        defer { close(silent) }
        #expect(ChannelTest.peerCloses(silent, within: 10))
        #expect(ChannelTest.eventually(20) { server.counts.pending == 1 })
        #expect(!ChannelTest.peerCloses(started, within: 0.2))
    }

    @Test func anIdleAuthenticatedConnectionMakesRoomAndGetsACloseNotify() throws {
        var limits = ChannelTest.limits(handshakeTimeout: 20, maxConnections: 2)
        limits.idleTimeout = 60
        let idle = ChannelRecorder<Bool>()
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key, limits: limits) { connection in
            connection.markIdle()
            idle.append(true)
            ChannelTest.echo(connection)
        }
        defer { server.stop() }
        let first = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key, limits: limits)
        defer { first.close() }
        #expect(ChannelTest.eventually(20) { idle.count == 1 })  // idle before the second
        let second = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key, limits: limits)
        defer { second.close() }
        #expect(ChannelTest.eventually(20) { idle.count == 2 })
        let third = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key, limits: limits)
        defer { third.close() }
        try third.send(Frame(type: 4, payload: [4]), timeout: 5)
        #expect(try third.receive(timeout: 5) == Frame(type: 4, payload: [4]))
        // The oldest idle one went, with a close_notify before the FIN.
        #expect(ChannelTest.failure { () throws(HandoffError) in try first.receive(timeout: 5) }?.code == .connectionUnavailable)
        #expect(first.socket.receivedCloseNotify)
        try second.send(Frame(type: 5, payload: [5]), timeout: 5)
        #expect(try second.receive(timeout: 5) == Frame(type: 5, payload: [5]))
    }

    @Test func aBusyConnectionIsNeverShedAndTheNewcomerWaitsInTheBacklog() throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key,
                                       limits: ChannelTest.limits(handshakeTimeout: 20, maxConnections: 1), onConnection: ChannelTest.echo)
        defer { server.stop() }
        let busy = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key,
                                                 limits: ChannelTest.limits(handshakeTimeout: 20))
        defer { busy.close() }
        #expect(ChannelTest.eventually(20) { server.counts.active == 1 })
        // The newcomer waits in the backlog while no slot can be freed.
        let waiting = ChannelTest.onThread { () -> HandoffError.Code? in
            ChannelTest.failure { () throws(HandoffError) in
                let c = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key,
                                                      limits: ChannelTest.limits(handshakeTimeout: 20))
                try c.send(Frame(type: 1, payload: [1]), timeout: 5)
                _ = try c.receive(timeout: 10)
                c.close()
            }?.code
        }
        try busy.send(Frame(type: 6, payload: [6]), timeout: 5)
        #expect(try busy.receive(timeout: 5) == Frame(type: 6, payload: [6]))
        busy.close()  // room: the waiting one is served
        #expect(waiting.wait(seconds: 20) == .some(nil))
    }

    @Test func connectionsBeyondTheLimitAreClosed() throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key,
                                       limits: ChannelTest.limits(maxConnections: 1), onConnection: ChannelTest.echo)
        defer { server.stop() }
        let first = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        #expect(ChannelTest.eventually { server.counts.active == 1 })
        #expect(ChannelTest.failure { () throws(HandoffError) in
            try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        }?.code == .connectionUnavailable)
        first.close()
        #expect(ChannelTest.eventually { server.counts.active == 0 })
        let second = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        second.close()
    }

    @Test func stopAbortsHandshakesAndConnectionsAndIsIdempotent() throws {
        let handlerSaw = OneShot<HandoffError.Code?>()
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key,
                                       limits: ChannelTest.limits(handshakeTimeout: 30)) { connection in
            handlerSaw.fulfil(Result { () throws(HandoffError) in try connection.receive(timeout: 30) }.channelErrorCode)
        }
        let address = ChannelTest.address(server)
        let client = try ChannelConnection.connect(to: address, psk: ChannelTest.key)
        let silent = ChannelTest.rawConnect(server.port)
        defer { close(silent) }
        #expect(ChannelTest.eventually { server.counts == (pending: 1, active: 1) })
        let start = monotonicSeconds()
        server.stop()
        #expect(handlerSaw.wait(seconds: 5) == .some(.connectionUnavailable))
        #expect(ChannelTest.peerCloses(silent, within: 5), "the pending handshake was aborted")
        #expect(ChannelTest.failure { () throws(HandoffError) in try client.receive(timeout: 5) }?.code == .connectionUnavailable)
        #expect(ChannelTest.since(start) < 5)
        server.stop()
        #expect(ChannelTest.failure { () throws(HandoffError) in try ChannelConnection.connect(to: address, psk: ChannelTest.key) }?.code == .connectionUnavailable)
    }

    @Test func stopFromInsideTheHandlerDoesNotDeadlock() throws {
        let box = Locked<ChannelServer?>(nil)
        let stopped = OneShot<Bool>()
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { _ in
            box.withLock { $0 }?.stop()
            stopped.fulfil(true)
        }
        box.withLock { $0 = server }
        let client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        defer { client.close() }
        #expect(stopped.wait(seconds: 5) == true)
        box.withLock { $0 = nil }
    }

    @Test func droppingTheServerStopsIt() throws {
        var server: ChannelServer? = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { _ in }
        let address = ChannelTest.address(server!)
        server = nil
        #expect(server == nil)
        #expect(ChannelTest.failure { () throws(HandoffError) in try ChannelConnection.connect(to: address, psk: ChannelTest.key) }?.code == .connectionUnavailable)
    }

    @Test func aBusyPortIsAnIOError() throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { _ in }
        defer { server.stop() }
        #expect(ChannelTest.failure { () throws(HandoffError) in
            try ChannelServer(listeningOn: ChannelTest.address(server), psk: ChannelTest.key) { _ in }
        }?.code == .io)
    }

    @Test func theWildcardListensOnBothFamiliesOnOnePortAndNamesIPv4PeersPlainly() throws {
        let peers = ChannelRecorder<String>()
        let server = try ChannelServer(listeningOn: SocketAddress(host: "::", port: 0), psk: ChannelTest.key,
                                       limits: ChannelTest.limits(handshakeTimeout: 20)) { connection in
            peers.append(connection.peer.host)
            ChannelTest.echo(connection)
        }
        defer { server.stop() }
        var targets = ["127.0.0.1:\(server.port)"]
        if server.address.host == "::" { targets.append("[::1]:\(server.port)") }  // else the host has no IPv6
        for target in targets {
            let client = try ChannelConnection.connect(to: try SocketAddress(parsing: target), psk: ChannelTest.key, limits: ChannelTest.limits(handshakeTimeout: 20))
            try client.send(Frame(type: 7, payload: [7]), timeout: 5)
            #expect(try client.receive(timeout: 5) == Frame(type: 7, payload: [7]))
            client.close()
        }
        #expect(ChannelTest.eventually(20) { peers.count == targets.count })
        #expect(peers.all.first == "127.0.0.1", "an IPv4 peer of the dual-stack socket is not ::ffff:127.0.0.1")
    }

    @Test func ipv6LoopbackWorksWhenPresent() throws {
        let server: ChannelServer
        do {
            server = try ChannelServer(listeningOn: SocketAddress(host: "::1", port: 0), psk: ChannelTest.key, onConnection: ChannelTest.echo)
        } catch {
            return  // no IPv6 on this host
        }
        defer { server.stop() }
        let client = try ChannelConnection.connect(to: try SocketAddress(parsing: "[::1]:\(server.port)"), psk: ChannelTest.key)
        defer { client.close() }
        try client.send(Frame(type: 6, payload: [6]), timeout: 5)
        #expect(try client.receive(timeout: 5) == Frame(type: 6, payload: [6]))
    }
}
