// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
@testable import HandoffAgent
import HandoffContinuity
import HandoffModel
import Testing

/// The agent's loop on its `Reactor` (AgentServer.swift): the HELLO
/// deadlines of silent connections are one timer (it fires once per
/// deadline it was armed for, never once per turn), and once they are
/// closed the idle loop waits with nothing armed. Counts of the reactor.
@Suite(.serialized) struct AgentLoopTests {
    @Test func helloDeadlinesAreOneTimerAndTheIdleLoopSleeps() throws {
        var limits = AgentLimits()
        limits.helloTimeout = 1
        let f = try AgentFixture(limits: limits)
        let silent = try (0..<3).map { _ in try f.connect() }
        for client in silent { #expect(client.waitUntilClosed()) }
        #expect(f.log.waitClosed("hello-timeout", count: 3) && f.counters.closedHelloTimeout == 3)
        let loop = f.agent.server.loop
        let fired = loop.counts.timerFires
        #expect(fired >= 1 && fired <= 3, "one timer: at most one firing per deadline, got \(fired)")
        // Idle: no connection, no deadline, no source asking for time.
        let waits = loop.counts.waits
        usleep(500_000)
        #expect(loop.counts.waits == waits, "the idle loop woke \(loop.counts.waits - waits) times")
        #expect(loop.counts.timerFires == fired)
    }
}
