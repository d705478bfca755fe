// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
import Testing

/// Both pairing runs over loopback, on threads of this process, with real
/// sockets: the sponsor hears the joiner's beacons on its own UDP port and
/// connects to the joiner's TCP listener.
@Suite(.serialized) struct PairingLoopbackTests {
    final class Box<T>: @unchecked Sendable {
        var value: T
        init(_ value: T) { self.value = value }
    }

    struct Outcome {
        var sponsor: Result<PairingResult, HandoffError>
        var joiner: Result<PairingResult, HandoffError>
        var joinerStore: AccountStore
        var joinerPort: UInt16
        var sponsorBeaconPort: UInt16
        var codes: [ComparisonCode]
    }

    static func tempStore() -> AccountStore {
        var template = Array("/tmp/pairing-test-XXXXXX".utf8CString)
        let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        return AccountStore(directory: path + "/handoff")
    }

    /// Runs a sponsor and a joiner. `answers` decide each person's answer
    /// from the code (nil: never answers); `during` runs while the joiner
    /// listens (its TCP port, the sponsor's UDP port) — an attacker.
    /// `sponsorMethod`/`joinerMethod`: a one-time code each side was given.
    static func run(window: Double = 30, sponsorMethod: PairingMethod = .comparison, joinerMethod: PairingMethod = .comparison,
                    sponsorSays: @escaping @Sendable (ComparisonCode) -> Bool? = { _ in nil },
                    joinerSays: @escaping @Sendable (ComparisonCode) -> Bool? = { _ in nil },
                    during: (@Sendable (UInt16, UInt16) -> Void)? = nil) throws -> Outcome {
        var limits = PairingLimits()
        limits.window = window
        let store = tempStore()
        let account = AccountKey.generate()
        let sponsorPort = Box<UInt16>(0), joinerPort = Box<UInt16>(0), codes = Locked<[ComparisonCode]>([])
        let ready = Locked(false)
        let sponsorResult = Box<Result<PairingResult, HandoffError>?>(nil)
        let neverAnswers = Box<[Int32]>([-1, -1])
        _ = clinux_pipe2(&neverAnswers.value, O_CLOEXEC)
        defer { close(neverAnswers.value[0]); close(neverAnswers.value[1]) }
        func prompt(_ says: @escaping @Sendable (ComparisonCode) -> Bool?, _ code: ComparisonCode) -> PairingPrompt {
            codes.withLock { $0.append(code) }
            return says(code) == nil ? PairingPrompt(fd: neverAnswers.value[0]) { nil } : PairingPrompt(fd: -1) { says(code) }
        }
        var sponsorEvents = PairingEvents { prompt(sponsorSays, $0) }
        sponsorEvents.beaconsReady = { port in
            sponsorPort.value = port
            ready.withLock { $0 = true }
        }
        var sponsorConfig = PairingConfiguration(beacons: BeaconTransportConfig(port: 0, multicast: false,
                                                                                peers: [UDPAddress(host: "127.0.0.1", port: 9)!]))
        sponsorConfig.limits = limits
        let boxedEvents = Box(sponsorEvents)
        let thread = startJoinableThread { [sponsorConfig] in
            let sponsorEvents = boxedEvents.value
            do throws(HandoffError) {
                sponsorResult.value = .success(try PairingSponsor.run(sponsorConfig, accountKey: account, deviceName: "sponsor box",
                                                                      method: sponsorMethod, events: sponsorEvents))
            } catch {
                sponsorResult.value = .failure(error)
            }
        }!
        for _ in 0..<10_000 where !ready.withLock({ $0 }) { usleep(1000) }
        var joinerConfig = PairingConfiguration(beacons: BeaconTransportConfig(
            port: 0, multicast: false, peers: [UDPAddress(host: "127.0.0.1", port: sponsorPort.value)!]))
        joinerConfig.listenAddress = SocketAddress(host: "127.0.0.1", port: 0)
        joinerConfig.limits = limits
        var joinerEvents = PairingEvents { prompt(joinerSays, $0) }
        let attacker = Box<pthread_t?>(nil)
        joinerEvents.listening = { port in
            joinerPort.value = port
            if let during {
                let beaconPort = sponsorPort.value
                attacker.value = startJoinableThread { during(port, beaconPort) }
            }
        }
        let joinerResult: Result<PairingResult, HandoffError>
        do throws(HandoffError) {
            joinerResult = .success(try PairingJoiner.run(joinerConfig, deviceName: "joiner box", store: store,
                                                          method: joinerMethod, events: joinerEvents))
        } catch {
            joinerResult = .failure(error)
        }
        pthread_join(thread, nil)
        if let a = attacker.value { pthread_join(a, nil) }
        return Outcome(sponsor: sponsorResult.value!, joiner: joinerResult, joinerStore: store, joinerPort: joinerPort.value,
                       sponsorBeaconPort: sponsorPort.value, codes: codes.withLock { $0 })
    }

    static func storedAccount(_ store: AccountStore) -> AccountKey? { try? store.loadAccount() }

    @Test func bothAcceptAndTheKeyArrives() throws {
        let outcome = try Self.run(sponsorSays: { _ in true }, joinerSays: { _ in true })
        let sponsor = try outcome.sponsor.get(), joiner = try outcome.joiner.get()
        #expect(sponsor.peerName == "joiner box")
        #expect(joiner.peerName == "sponsor box")
        #expect(sponsor.code == joiner.code)
        #expect(sponsor.accountID == joiner.accountID)
        #expect(Self.storedAccount(outcome.joinerStore)?.derived.accountID == sponsor.accountID)
    }

    @Test func joinerSaysNoSoBothFailAndNothingIsStored() throws {
        let outcome = try Self.run(sponsorSays: { _ in true }, joinerSays: { _ in false })
        #expect(throws: HandoffError.self) { try outcome.sponsor.get() }
        #expect(throws: HandoffError.self) { try outcome.joiner.get() }
        #expect(Self.storedAccount(outcome.joinerStore) == nil)
    }

    @Test func sponsorSaysNoSoBothFailAndNothingIsStored() throws {
        let outcome = try Self.run(sponsorSays: { _ in false }, joinerSays: { _ in true })
        #expect(throws: HandoffError.self) { try outcome.sponsor.get() }
        #expect(throws: HandoffError.self) { try outcome.joiner.get() }
        #expect(Self.storedAccount(outcome.joinerStore) == nil)
    }

    @Test func nobodyAnswersSoTheWindowCloses() throws {
        let outcome = try Self.run(window: 4, sponsorSays: { _ in nil }, joinerSays: { _ in true })
        // Whichever window closes first times out and tells the other.
        guard case .failure(let sponsorError) = outcome.sponsor, case .failure(let joinerError) = outcome.joiner else {
            Issue.record("a side succeeded without the sponsor's answer")
            return
        }
        #expect([sponsorError.code, joinerError.code].contains(.timedOut))
        #expect(Self.storedAccount(outcome.joinerStore) == nil)
    }

    /// Garbage connections to the joiner's port and garbage datagrams to
    /// the sponsor's beacon port while they pair: the pairing succeeds.
    @Test func garbageDuringAPairingChangesNothing() throws {
        let outcome = try Self.run(sponsorSays: { _ in true }, joinerSays: { _ in true }, during: { tcpPort, udpPort in
            let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
            defer { close(udp) }
            var to = sockaddr_in()
            to.sin_family = sa_family_t(AF_INET)
            to.sin_addr.s_addr = inet_addr("127.0.0.1")
            for round in 0..<200 {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
                to.sin_port = tcpPort.bigEndian
                let connected = withUnsafePointer(to: &to) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                } == 0
                let junk = Crypto.randomBytes(1 + round % 90)
                if connected { _ = send(fd, junk, junk.count, Int32(MSG_NOSIGNAL)) }
                close(fd)
                var beacon = PairingBeacon(port: 1 + UInt16(round), sessionID: Crypto.randomBytes(16)).encoded()
                if round % 2 == 0 { beacon = Crypto.randomBytes(96) }
                to.sin_port = udpPort.bigEndian
                _ = withUnsafePointer(to: &to) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(udp, beacon, beacon.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                if !connected { break }  // the listener is gone: the attempt began
            }
        })
        let sponsor = try outcome.sponsor.get(), joiner = try outcome.joiner.get()
        #expect(sponsor.code == joiner.code)
        #expect(Self.storedAccount(outcome.joinerStore) != nil)
    }
}
