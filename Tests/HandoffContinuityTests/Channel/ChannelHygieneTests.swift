// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a library owes its host: no SIGPIPE, no leaked descriptors.
@Suite struct ChannelHygieneTests {
    /// SIGPIPE is blocked on this thread while it writes, so a SIGPIPE the
    /// writes raise stays pending here (Linux keeps blocked signals pending
    /// even when their disposition is "ignore") instead of killing the test
    /// process; the process-wide disposition is never touched.
    private static func raisesSIGPIPE(_ body: () -> Void) -> Bool {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        var none = timespec(tv_sec: 0, tv_nsec: 0)
        while sigtimedwait(&pipeSignal, nil, &none) == SIGPIPE {}  // start clean
        body()
        var pending = sigset_t()
        sigpending(&pending)
        let raised = sigismember(&pending, SIGPIPE) == 1
        while sigtimedwait(&pipeSignal, nil, &none) == SIGPIPE {}
        return raised
    }

    @Test func theSIGPIPEProbeDetectsAPlainWrite() {
        // The control: write(2) to a socket whose peer is gone raises SIGPIPE.
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        close(pair[1])
        let raised = Self.raisesSIGPIPE {
            var byte: UInt8 = 1
            _ = write(pair[0], &byte, 1)
        }
        close(pair[0])
        #expect(raised)
    }

    @Test func writingToAPeerThatLeftRaisesNoSIGPIPE() throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { _ in }  // closes at once
        defer { server.stop() }
        let client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        defer { client.close() }
        #expect(ChannelTest.eventually { server.counts == (pending: 0, active: 0) })
        usleep(50_000)  // the peer's FIN has arrived; our side does not know yet
        var errors: [HandoffError.Code] = []
        let raised = Self.raisesSIGPIPE {
            for _ in 0..<10 {
                do throws(HandoffError) {
                    try client.send(Frame(type: 1, payload: Array(repeating: 7, count: 1000)), timeout: 2)
                } catch {
                    errors.append(error.code)
                    break
                }
                usleep(20_000)  // let the peer's reset arrive
            }
        }
        #expect(!raised, "a send to a departed peer raised SIGPIPE")
        #expect(errors == [.connectionUnavailable], "the writes failed with EPIPE/ECONNRESET")
    }

    @Test func twoHundredConnectionsLeakNoDescriptors() throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key, onConnection: ChannelTest.echo)
        defer { server.stop() }
        let address = ChannelTest.address(server)
        // Warm up OpenSSL (its config and providers open files once).
        try ChannelConnection.connect(to: address, psk: ChannelTest.key).close()
        #expect(ChannelTest.eventually { server.counts == (pending: 0, active: 0) })
        let before = ChannelTest.openDescriptorCount()
        for i in 0..<200 {
            let client = try ChannelConnection.connect(to: address, psk: ChannelTest.key)
            if i % 10 == 0 {
                try client.send(Frame(type: 1, payload: [UInt8(i % 256)]), timeout: 5)
                #expect(try client.receive(timeout: 5) == Frame(type: 1, payload: [UInt8(i % 256)]))
            }
            client.close()
        }
        #expect(ChannelTest.eventually { server.counts == (pending: 0, active: 0) })
        // Other suites open descriptors in parallel: allow some noise, far
        // below the 200 (client) + 200 (server) a per-connection leak gives.
        #expect(ChannelTest.eventually { ChannelTest.openDescriptorCount() <= before + 40 },
                "descriptors before: \(before), after: \(ChannelTest.openDescriptorCount())")
    }

    @Test func failedConnectsLeakNoDescriptors() throws {
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { _ in }
        defer { server.stop() }
        let before = ChannelTest.openDescriptorCount()
        let closed = SocketAddress(host: "127.0.0.1", port: ChannelTest.closedPort())
        for _ in 0..<100 {
            _ = try? ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.otherKey)
            _ = try? ChannelConnection.connect(to: closed, psk: ChannelTest.key)
        }
        #expect(ChannelTest.eventually { server.counts.pending == 0 })
        #expect(ChannelTest.eventually { ChannelTest.openDescriptorCount() <= before + 40 },
                "descriptors before: \(before), after: \(ChannelTest.openDescriptorCount())")
    }
}
