// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel
@testable import HandoffRelay
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `hoff-relay` on its Reactor, by its counts: a broker that is down costs
/// the loop its retries and nothing more, another thread's request is one
/// wake-up, and `stop` ends the thread. The broker is a real
/// `MQTTConnection` to a loopback port where nothing listens. Every wait
/// is bounded; sleeps only give a spinning loop the time to show.
@Suite(.serialized) struct RelaySessionLoopTests {
    static let account = try! AccountKey(bytes: Array(repeating: 7, count: 32))

    /// A loopback port nothing listens on (bound, then closed).
    static func deadPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(fd, $0, length)
                _ = getsockname(fd, $0, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func session() throws -> RelaySession {
        let port = deadPort()
        return try RelaySession(account: account, deviceID: Array(repeating: 0xA1, count: 16),
                                brokerName: "127.0.0.1:\(port)") { will throws(HandoffError) in
            var options = MQTTConnection.Options(host: "127.0.0.1", port: port)
            options.will = will
            return try MQTTConnection(options)
        }
    }

    static let quiet = PeerPathEvents(beacon: { _, _ in }, gone: { _ in }, accepted: { fd, _, _ in close(fd) },
                                      connected: {}, announce: {})

    /// Waits (bounded) until `done` holds.
    @discardableResult
    static func eventually(seconds: Double = 10, _ done: () -> Bool) -> Bool {
        let end = monotonicSeconds() + seconds
        while !done() && monotonicSeconds() < end { usleep(2000) }
        return done()
    }

    @Test func aBrokerThatIsDownCostsItsRetriesOnly() throws {
        let session = try Self.session()
        #expect(session.start(Self.quiet))
        defer { session.stop() }
        #expect(Self.eventually { session.status.connection == .unreachable })
        let before = session.reactor.counts
        usleep(500_000)  // the first retry is 1 s after the failure
        let after = session.reactor.counts
        // At most the retry's timer and its turn: a loop that re-armed its
        // timer for "now", or watched a socket it has not, spins here.
        #expect(after.waits - before.waits <= 2)
        #expect(after.wakes == before.wakes)
    }

    @Test func aRequestFromAnotherThreadIsOneWakeUp() throws {
        let session = try Self.session()
        #expect(session.start(Self.quiet))
        defer { session.stop() }
        #expect(Self.eventually { session.status.connection == .unreachable })
        let before = session.reactor.counts
        session.deviceLeft(Array(repeating: 0xB2, count: 16))
        #expect(Self.eventually { session.reactor.counts.wakes > before.wakes })
        let after = session.reactor.counts
        #expect(after.wakes - before.wakes == 1)
        #expect(after.waits - before.waits <= 3)
    }

    @Test func stopEndsTheThread() throws {
        let session = try Self.session()
        #expect(session.start(Self.quiet))
        #expect(Self.eventually { session.status.connection == .unreachable })
        session.stop()
        #expect(session.status.connection == .stopped)
        var entry = pollfd(fd: session.finished.fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&entry, 1, 0) == 1)  // the thread said it ended before `stop` returned
        session.stop()  // idempotent
    }
}
