// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Collects what a transport's callback receives.
final class BeaconInbox: Sendable {
    private let items = Locked<[([UInt8], UDPAddress)]>([])

    var callback: @Sendable ([UInt8], UDPAddress) -> Void {
        { [items] packet, from in items.withLock { $0.append((packet, from)) } }
    }

    var all: [([UInt8], UDPAddress)] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }

    /// Waits until at least `n` arrived or `seconds` passed; the count.
    @discardableResult
    func wait(for n: Int, seconds: Double = 3) -> Int {
        let deadline = monotonicSeconds() + seconds
        while count < n && monotonicSeconds() < deadline { usleep(2_000) }
        return count
    }
}

/// Loopback helpers that do not go through the transport.
enum BeaconLoopback {
    /// Sends `bytes` from a fresh socket to 127.0.0.1:`port`.
    static func sendRaw(_ bytes: [UInt8], to port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        precondition(fd >= 0)
        defer { close(fd) }
        let address = UDPAddress(host: "127.0.0.1", port: port)!
        _ = bytes.withUnsafeBytes { b in
            address.withSockaddr { sendto(fd, b.baseAddress, b.count, 0, $0, $1) }
        }
    }

    /// True when a socket without SO_REUSE* can bind 0.0.0.0:`port` now:
    /// nobody holds it.
    static func portIsFree(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        precondition(fd >= 0)
        defer { close(fd) }
        let address = UDPAddress(host: "0.0.0.0", port: port)!
        return address.withSockaddr { bind(fd, $0, $1) } == 0
    }

    /// Binds 0.0.0.0:0 exclusively; the socket and its port.
    static func holdPort() -> (Int32, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        precondition(fd >= 0)
        let address = UDPAddress(host: "0.0.0.0", port: 0)!
        precondition(address.withSockaddr { bind(fd, $0, $1) } == 0)
        var sa = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: sa.sin_port))
    }

    static func waitUntil(seconds: Double = 3, _ condition: () -> Bool) -> Bool {
        let deadline = monotonicSeconds() + seconds
        while !condition() {
            if monotonicSeconds() >= deadline { return false }
            usleep(2_000)
        }
        return true
    }
}

@Suite struct BeaconTransportTests {
    static let unicastOnly = BeaconTransportConfig(port: 0, multicast: false)

    func sealed(sequence: UInt64, name: String = "Sender") throws -> [UInt8] {
        var b = BeaconFixtures.vectorAdvert
        b.sequence = sequence
        b.deviceName = name
        return try BeaconCodec.seal(b, key: BeaconFixtures.key)
    }

    @Test func twoTransportsExchangeBeaconsAsUnicastPeers() throws {
        let inboxA = BeaconInbox(), inboxB = BeaconInbox()
        let a = try BeaconTransport(config: Self.unicastOnly, receive: inboxA.callback)
        defer { a.stop() }
        var configB = Self.unicastOnly
        configB.peers = [UDPAddress(host: "127.0.0.1", port: a.port)!]
        let b = try BeaconTransport(config: configB, receive: inboxB.callback)
        defer { b.stop() }
        a.setPeers([UDPAddress(host: "127.0.0.1", port: b.port)!])
        #expect(a.port != 0 && b.port != 0 && a.port != b.port)

        let fromA = try sealed(sequence: 1, name: "A")
        a.send(fromA)
        #expect(inboxB.wait(for: 1) == 1)
        let (packet, source) = try #require(inboxB.all.first)
        #expect(packet == fromA)
        #expect(source == UDPAddress(host: "127.0.0.1", port: a.port))
        #expect(BeaconCodec.open(packet, key: BeaconFixtures.key)?.deviceName == "A")

        b.send(try sealed(sequence: 2, name: "B"))
        #expect(inboxA.wait(for: 1) == 1)
        #expect(inboxA.all.first.flatMap { BeaconCodec.open($0.0, key: BeaconFixtures.key) }?.deviceName == "B")
        #expect(inboxA.all.first?.1.description == "127.0.0.1:\(b.port)")

        #expect(a.stats.packetsSent == 1 && a.stats.sendErrors == 0 && a.stats.packetsReceived == 1)
        #expect(b.stats.packetsReceived == 1)
        #expect(a.stats.ipv4Interfaces.isEmpty && a.stats.ipv6Interfaces.isEmpty)  // multicast off
    }

    @Test func ipv6LoopbackPeer() throws {
        let inbox = BeaconInbox()
        let receiver = try BeaconTransport(config: Self.unicastOnly, receive: inbox.callback)
        defer { receiver.stop() }
        guard receiver.stats.ipv6Available else { return }   // a host without IPv6: nothing to test
        var config = Self.unicastOnly
        config.peers = [UDPAddress("[::1]:\(receiver.port)")!]
        let sender = try BeaconTransport(config: config, receive: { _, _ in })
        defer { sender.stop() }
        let packet = try sealed(sequence: 1)
        sender.send(packet)
        #expect(inbox.wait(for: 1) == 1)
        #expect(inbox.all.first?.0 == packet)
        #expect(inbox.all.first?.1 == UDPAddress(host: "::1", port: sender.port))
    }

    @Test func aHundredQuickPacketsArrive() throws {
        let inbox = BeaconInbox()
        let receiver = try BeaconTransport(config: Self.unicastOnly, receive: inbox.callback)
        defer { receiver.stop() }
        var config = Self.unicastOnly
        config.peers = [UDPAddress(host: "127.0.0.1", port: receiver.port)!]
        let sender = try BeaconTransport(config: config, receive: { _, _ in })
        defer { sender.stop() }
        for s in 1...100 { sender.send(try sealed(sequence: UInt64(s))) }
        inbox.wait(for: 100, seconds: 5)
        let sequences = inbox.all.compactMap { BeaconCodec.open($0.0, key: BeaconFixtures.key)?.sequence }
        #expect(sequences.count >= 90)
        #expect(Set(sequences).count == sequences.count)
        #expect(sender.stats.packetsSent == 100)
    }

    @Test func garbageIsDeliveredAsBytesAndBadSizesAreDropped() throws {
        let inbox = BeaconInbox()
        let t = try BeaconTransport(config: Self.unicastOnly, receive: inbox.callback)
        defer { t.stop() }
        let sizes = [0, 1, 10, 91, 92, 100, 1200, 1201, 1300, 1500, 4000]
        let delivered = sizes.filter { (92...1200).contains($0) }
        for n in sizes {
            BeaconLoopback.sendRaw((0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) }, to: t.port)
        }
        // A valid beacon after the garbage still arrives.
        let good = try sealed(sequence: 9)
        BeaconLoopback.sendRaw(good, to: t.port)
        #expect(inbox.wait(for: delivered.count + 1) == delivered.count + 1)
        #expect(BeaconLoopback.waitUntil { t.stats.packetsDropped == UInt64(sizes.count - delivered.count) })
        let received = inbox.all.map(\.0)
        #expect(received.map(\.count) == delivered + [good.count])
        #expect(received.dropLast().allSatisfy { BeaconCodec.open($0, key: BeaconFixtures.key) == nil })
        #expect(BeaconCodec.open(received.last!, key: BeaconFixtures.key)?.sequence == 9)
        #expect(received.first == (0..<92).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 92) })
    }

    @Test func stopIsIdempotentJoinsAndFreesThePort() throws {
        let inbox = BeaconInbox()
        let t = try BeaconTransport(config: Self.unicastOnly, receive: inbox.callback)
        let port = t.port
        #expect(!BeaconLoopback.portIsFree(port))
        t.stop()
        // Returned after the thread ended and the sockets closed.
        #expect(BeaconLoopback.portIsFree(port))
        t.stop()
        t.send(try sealed(sequence: 1))
        #expect(t.stats.packetsSent == 0)

        // Concurrent stops all return.
        let u = try BeaconTransport(config: Self.unicastOnly, receive: inbox.callback)
        let uPort = u.port
        let done = Locked(0)
        var threads: [pthread_t] = []
        for _ in 0..<4 {
            var thread = pthread_t()
            let box = Unmanaged.passRetained(BeaconStopBox { u.stop(); done.withLock { $0 += 1 } }).toOpaque()
            #expect(pthread_create(&thread, nil, { raw in
                Unmanaged<BeaconStopBox>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, box) == 0)
            threads.append(thread)
        }
        for thread in threads { pthread_join(thread, nil) }
        #expect(done.withLock { $0 } == 4)
        #expect(BeaconLoopback.portIsFree(uPort))
    }

    @Test func stopFromTheCallbackDoesNotDeadlock() throws {
        let holder = Locked<BeaconTransport?>(nil)
        let calls = Locked(0)
        let t = try BeaconTransport(config: Self.unicastOnly) { _, _ in
            calls.withLock { $0 += 1 }
            usleep(50_000)   // the second packet is queued by now
            holder.withLock { $0 }?.stop()
        }
        holder.withLock { $0 = t }
        let port = t.port
        BeaconLoopback.sendRaw(try sealed(sequence: 1), to: port)
        BeaconLoopback.sendRaw(try sealed(sequence: 2), to: port)
        #expect(BeaconLoopback.waitUntil { BeaconLoopback.portIsFree(port) })
        #expect(calls.withLock { $0 } == 1)   // stopped after the first
        t.stop()
        holder.withLock { $0 = nil }
    }

    @Test func droppingTheTransportStopsIt() throws {
        var port: UInt16 = 0
        do {
            let t = try BeaconTransport(config: Self.unicastOnly, receive: { _, _ in })
            port = t.port
            #expect(!BeaconLoopback.portIsFree(port))
        }
        #expect(BeaconLoopback.waitUntil { BeaconLoopback.portIsFree(port) })
    }

    @Test func aPortHeldExclusivelyIsAnIOError() throws {
        let (fd, port) = BeaconLoopback.holdPort()
        defer { close(fd) }
        var config = Self.unicastOnly
        config.port = port
        #expect(throws: HandoffError.self) { try BeaconTransport(config: config, receive: { _, _ in }) }
        do {
            _ = try BeaconTransport(config: config, receive: { _, _ in })
        } catch {
            #expect(error.code == .io)
        }
    }

    @Test func processesShareAFixedPort() throws {
        let (fd, port) = BeaconLoopback.holdPort()
        close(fd)   // a port free a moment ago
        var config = Self.unicastOnly
        config.port = port
        let a = try BeaconTransport(config: config, receive: { _, _ in })
        defer { a.stop() }
        let b = try BeaconTransport(config: config, receive: { _, _ in })
        defer { b.stop() }
        #expect(a.port == port && b.port == port)
    }

    @Test func missingInterfacesAreSkippedNotFatal() throws {
        // A named interface that does not exist: nothing joined, nothing
        // sent to the groups, no traffic off the host.
        let config = BeaconTransportConfig(port: 0, multicast: true, interfaces: ["nosuchif0"])
        let t = try BeaconTransport(config: config, receive: { _, _ in })
        defer { t.stop() }
        #expect(t.stats.ipv4Interfaces.isEmpty && t.stats.ipv6Interfaces.isEmpty)
        #expect(t.stats.setupSkips >= 1)
        t.send(try sealed(sequence: 1))
        #expect(t.stats.packetsSent == 0 && t.stats.sendErrors == 0)
    }

    @Test func oversizePacketsAreNotSent() throws {
        let inbox = BeaconInbox()
        let receiver = try BeaconTransport(config: Self.unicastOnly, receive: inbox.callback)
        defer { receiver.stop() }
        var config = Self.unicastOnly
        config.peers = [UDPAddress(host: "127.0.0.1", port: receiver.port)!]
        let sender = try BeaconTransport(config: config, receive: { _, _ in })
        defer { sender.stop() }
        sender.send([UInt8](repeating: 1, count: 1201))
        sender.send([])
        #expect(sender.stats.sendErrors == 2 && sender.stats.packetsSent == 0)
    }
}

private final class BeaconStopBox {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
