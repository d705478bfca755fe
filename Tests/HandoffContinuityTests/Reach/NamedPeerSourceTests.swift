// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
import Testing

/// A configured host name with a resolver the test controls
/// (docs/PROTOCOL.md "Peer sources"): a failed lookup keeps the last good
/// addresses for a while, and a change of the network's interfaces looks
/// the name up again within the settle time, not at the next minute.
@Suite struct NamedPeerSourceTests {
    /// Answers what `next` holds; counts the lookups.
    final class Resolver: Sendable {
        let next: Locked<NamedPeerSource.Resolution>
        let lookups = Awaitable(0)
        init(_ first: NamedPeerSource.Resolution) { next = Locked(first) }
        func resolve(_ peer: PeerName) -> NamedPeerSource.Resolution {
            defer { lookups.update { $0 += 1 } }
            return next.withLock { $0 }
        }
        var count: Int { lookups.update { $0 } }
    }

    static let name = PeerName(host: "desk.example.test", port: 52370)!
    static let a = [UDPAddress("10.0.0.1:52370")!, UDPAddress("[fd00::1]:52370")!]
    static let b = [UDPAddress("10.0.0.2:52370")!]
    static let gone = NamedPeerSource.Resolution.failure("Temporary failure in name resolution")

    static func source(_ resolver: Resolver) -> NamedPeerSource {
        NamedPeerSource(name, resolver: { resolver.resolve($0) })
    }

    @Test func aFailedLookupKeepsTheLastGoodAddressesAndSaysSo() {
        let resolver = Resolver(.success(Self.a))
        let source = Self.source(resolver)
        #expect(source.refresh(now: 0) == NamedPeerSource.resolveInterval)
        resolver.next.withLock { $0 = Self.gone }
        let retry = source.refresh(now: 60)
        #expect(source.addresses == Self.a)
        #expect(source.state.condition == .ok && source.state.addresses == Self.a.map(\.description))
        let message = source.state.message ?? ""
        #expect(message.hasPrefix("the last lookup failed (Temporary failure in name resolution); kept the addresses of "))
        #expect(message.hasSuffix(" UTC"))
        // Sooner than the minute: a resolver that is back is heard from soon.
        #expect(retry == 60 + NamedPeerSource.failureRetry)
        #expect(source.refresh(now: 62) == 62 + 2 * NamedPeerSource.failureRetry)
        #expect(source.state.message?.hasPrefix("the last 2 lookups failed") == true)
        // A success ends it all: no message, the interval again.
        resolver.next.withLock { $0 = .success(Self.b) }
        #expect(source.refresh(now: 66) == 66 + NamedPeerSource.resolveInterval)
        #expect(source.addresses == Self.b && source.state.condition == .ok && source.state.message == nil)
    }

    /// The rule: dropped once `dropAfterFailures` lookups in a row failed
    /// and more than `dropAfterSeconds` passed since the last success;
    /// neither alone drops them.
    @Test func theAddressesGoOnlyAfterFailuresSpanningTheLimit() {
        let resolver = Resolver(.success(Self.a))
        let source = Self.source(resolver)
        _ = source.refresh(now: 1000)
        resolver.next.withLock { $0 = Self.gone }
        // Many quick failures (a network that changes and changes): kept.
        for k in 0..<10 { _ = source.refresh(now: 1001 + Double(k)) }
        #expect(source.addresses == Self.a && source.state.condition == .ok)
        // Over the time limit with enough failures: dropped, and says when it last resolved.
        _ = source.refresh(now: 1000 + NamedPeerSource.dropAfterSeconds + 1)
        #expect(source.addresses.isEmpty && source.state.condition == .failed)
        #expect(source.state.message?.hasPrefix("Temporary failure in name resolution; it last resolved at ") == true)
    }

    @Test func oneFailureAfterALongSleepDropsNothing() {
        let resolver = Resolver(.success(Self.a))
        let source = Self.source(resolver)
        _ = source.refresh(now: 0)
        resolver.next.withLock { $0 = Self.gone }
        _ = source.refresh(now: 10_000)
        _ = source.refresh(now: 10_002)
        #expect(source.addresses == Self.a && source.state.condition == .ok)
        _ = source.refresh(now: 10_006)
        #expect(source.addresses.isEmpty && source.state.condition == .failed)
    }

    @Test func aNameThatNeverResolvedIsFailedAndRetriedWithABoundedBackOff() {
        let source = Self.source(Resolver(Self.gone))
        var now = 0.0
        var waits: [Double] = []
        for _ in 0..<8 {
            let next = source.refresh(now: now)!
            waits.append(next - now)
            now = next
        }
        #expect(waits == [2, 4, 8, 16, 32, 60, 60, 60])
        #expect(source.addresses.isEmpty && source.state.condition == .failed)
        #expect(source.state.message == "Temporary failure in name resolution")
    }

    /// `PeerSources.interfacesChanged`: the name is looked up again after
    /// the settle time (the test waits at most 20 s, a third of the
    /// interval, so only the change can explain a second lookup); a burst
    /// of changes is one lookup; a source that does not follow the network
    /// is not refreshed.
    @Test func aNetworkChangeLooksTheNameUpAgainSoon() {
        let resolver = Resolver(.success(Self.a))
        let named = Self.source(resolver)
        let other = PeerSourceTests.Fake([])
        let published = Awaitable<[UDPAddress]>([])
        let sources = PeerSources([named, other]) { list, _ in published.update { $0 = list } }
        sources.interfacesChanged()  // before start: nothing to do, nothing breaks
        #expect(sources.start())
        defer { sources.stop() }
        #expect(published.wait(until: { $0 == Self.a }, seconds: 20) { $1 })
        #expect(resolver.count == 1)

        resolver.next.withLock { $0 = .success(Self.b) }
        for _ in 0..<50 { sources.interfacesChanged() }
        #expect(published.wait(until: { $0 == Self.b }, seconds: 20) { $1 })
        #expect(resolver.count == 2)
        #expect(other.refreshes.withLock { $0 } == 1)
        #expect(named.state.addresses == Self.b.map(\.description))
    }

    @Test func theSystemResolverStillAnswersThroughTheDefault() {
        // /etc/hosts: no traffic.
        let source = NamedPeerSource(PeerName(host: "localhost", port: 52370)!)
        _ = source.refresh(now: 0)
        #expect(source.addresses.contains(UDPAddress("127.0.0.1:52370")!))
    }

    @Test func utcTimesReadAsPeopleWriteThem() {
        #expect(NamedPeerSource.utc(1_700_000_000) == "2023-11-14 22:13:20 UTC")
    }
}
