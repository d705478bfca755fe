// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase
@testable import HandoffAgent
import Testing

/// The agent's loop sources on a `Reactor` (LoopSources.swift): a pull-style
/// timeout is one timer armed before each wait, a due source is processed
/// once per deadline (never found due again without a process), a
/// descriptor closed under the loop is dropped, and a quiet source with no
/// timeout costs no wake-up. Counts of the reactor, not timings (each
/// `runOnce` timeout is only a safety bound).
@Suite struct LoopSourcesTests {
    /// A source with an eventfd and a timeout the test sets.
    final class FakeSource: AgentLoopSource {
        var fd: Int32
        var pollEvents: Int16 = Int16(POLLIN)
        /// What `timeoutMilliseconds` says before and after the first process.
        var timeouts: (before: Int32, after: Int32)
        private(set) var processed = 0

        init(timeout: Int32, then after: Int32 = -1) {
            fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
            timeouts = (timeout, after)
        }

        var timeoutMilliseconds: Int32 { processed == 0 ? timeouts.before : timeouts.after }

        func process() {
            processed += 1
            var value: UInt64 = 0
            if fd >= 0 { _ = read(fd, &value, 8) }   // drains: level-triggered
        }

        func poke() {
            var one: UInt64 = 1
            _ = write(fd, &one, 8)
        }
    }

    static func loop() throws -> (Reactor, LoopSources) {
        let reactor = try Reactor()
        let sources = LoopSources(reactor: reactor)
        reactor.beforeEachWait { sources.beforeWait() }
        return (reactor, sources)
    }

    @Test func aQuietSourceWithNoTimeoutCostsNoWakeUp() throws {
        let (reactor, sources) = try Self.loop()
        let source = FakeSource(timeout: -1)
        defer { close(source.fd) }
        sources.add(source)
        #expect(reactor.runOnce(timeout: 0.2) == false, "nothing ready, no timer armed")
        #expect(source.processed == 0)
        #expect(reactor.counts.timerFires == 0 && reactor.counts.wakes == 0)
        source.poke()
        #expect(reactor.runOnce(timeout: 20))
        #expect(source.processed == 1)
        #expect(reactor.runOnce(timeout: 0.2) == false, "drained: quiet again")
        #expect(source.processed == 1)
    }

    /// sd-bus's "now" (a timeout of 0): processed at the next turn, once;
    /// then it asks for nothing and the loop sleeps.
    @Test func aTimeoutOfNowIsProcessedOnceThenTheLoopSleeps() throws {
        let (reactor, sources) = try Self.loop()
        let source = FakeSource(timeout: 0)
        defer { close(source.fd) }
        sources.add(source)
        #expect(reactor.runOnce(timeout: 20), "the timer is due at once")
        #expect(source.processed == 1 && reactor.counts.timerFires == 1)
        #expect(reactor.runOnce(timeout: 0.2) == false)
        #expect(source.processed == 1 && reactor.counts.timerFires == 1 && reactor.counts.waits == 2)
    }

    /// A source that keeps saying "now" is processed once per turn (it has
    /// more to do: a bus past its budget), each turn one wait: never a turn
    /// that finds it due without processing it.
    @Test func aSourceThatKeepsSayingNowIsProcessedEveryTurn() throws {
        let (reactor, sources) = try Self.loop()
        let source = FakeSource(timeout: 0, then: 0)
        defer { close(source.fd) }
        sources.add(source)
        for _ in 0..<10 { reactor.runOnce(timeout: 20) }
        #expect(source.processed == 10)
        #expect(reactor.counts.waits == 10 && reactor.counts.timerFires == 10)
    }

    /// A deadline in the future: the timer fires when it passed, the
    /// source is processed once, and nothing is armed after.
    @Test func aDeadlineFiresOnce() throws {
        let (reactor, sources) = try Self.loop()
        let source = FakeSource(timeout: 30)
        defer { close(source.fd) }
        sources.add(source)
        var turns = 0
        while source.processed == 0 && turns < 100 {
            reactor.runOnce(timeout: 20)
            turns += 1
        }
        #expect(source.processed == 1 && reactor.counts.timerFires == 1)
        #expect(reactor.runOnce(timeout: 0.2) == false)
        #expect(source.processed == 1)
    }

    /// Its descriptor closed under the loop (POLLNVAL): processed once, then
    /// not watched again until it gives another descriptor: no spin.
    @Test func aDescriptorClosedUnderTheLoopIsDroppedNotSpunOn() throws {
        let (reactor, sources) = try Self.loop()
        let source = FakeSource(timeout: -1)
        // A high number, which the tests running beside this one do not
        // reach: closed, it stays closed (the kernel gives the lowest free).
        let low = source.fd
        source.fd = fcntl(low, F_DUPFD_CLOEXEC, 900)
        close(low)
        try #require(source.fd >= 900)
        sources.add(source)
        reactor.runOnce(timeout: 0)   // watched
        close(source.fd)              // the fd number stays what the source says
        #expect(reactor.runOnce(timeout: 20))
        #expect(source.processed == 1)
        let waits = reactor.counts.waits
        #expect(reactor.runOnce(timeout: 0.2) == false)
        #expect(source.processed == 1 && reactor.counts.waits == waits + 1)
        // A new descriptor is watched again.
        source.fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        defer { close(source.fd) }
        source.poke()
        #expect(reactor.runOnce(timeout: 20))
        #expect(source.processed == 2)
    }

    /// Removed: its handler is not called, its deadline not kept.
    @Test func aRemovedSourceIsNeitherWatchedNorTimed() throws {
        let (reactor, sources) = try Self.loop()
        let source = FakeSource(timeout: 0)
        defer { close(source.fd) }
        let key = sources.add(source)
        sources.remove(key)
        source.poke()
        #expect(reactor.runOnce(timeout: 0.2) == false)
        #expect(source.processed == 0 && reactor.counts.timerFires == 0)
    }
}
