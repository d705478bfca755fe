// SPDX-License-Identifier: MIT OR Apache-2.0
import Testing
@testable import HandoffAgent

/// A token the desktop hands over before an event (docs/agent.md §15
/// "Tokens end to end"): one, used once, dropped after 10 s. The clock is
/// passed in: no waiting.
struct HeldActivationTokenTests {
    @Test func oneTokenServesOneEvent() {
        var held = ActivationToken.Held()
        #expect(held.take(now: 100) == nil)
        held.keep("t1", now: 100)
        #expect(held.isHeld(now: 100))
        #expect(held.take(now: 100.5) == "t1")
        #expect(held.take(now: 100.6) == nil, "used once")
        #expect(!held.isHeld(now: 100.6))
    }

    @Test func onlyTheClientThatHandedItOverSpendsIt() {
        var held = ActivationToken.Held()
        held.keep("plasma's", from: ":1.7", now: 1)
        #expect(held.take(from: ":1.9", now: 1.1) == nil, "another client's event")
        #expect(held.take(from: ":1.7", now: 1.2) == nil, "and it is gone: the other event spent the chance")
        held.keep("krunner's", from: ":1.8", now: 2)
        #expect(held.take(from: ":1.8", now: 2.1) == "krunner's")
    }

    @Test func aNewerTokenReplacesTheOlder() {
        var held = ActivationToken.Held()
        held.keep("old", now: 10)
        held.keep("new", now: 11)
        #expect(held.take(now: 12) == "new")
        #expect(held.take(now: 12) == nil)
    }

    @Test func aTokenNoEventFollowsWithinTenSecondsIsDropped() {
        var held = ActivationToken.Held()
        held.keep("late", now: 50)
        #expect(held.isHeld(now: 50 + ActivationToken.Held.lifetime - 0.001))
        #expect(held.take(now: 50 + ActivationToken.Held.lifetime) == nil)
        // Taken (too late) is gone too: a later event gets none.
        #expect(held.take(now: 51) == nil)
        #expect(ActivationToken.Held.lifetime == 10)
    }

    @Test func aTokenThatMayNotBePassedOnLeavesNoneNotTheOlderOne() {
        var held = ActivationToken.Held()
        held.keep("good", now: 1)
        held.keep(String(repeating: "x", count: ActivationToken.maxBytes + 1), now: 2)
        #expect(held.take(now: 2) == nil)
        held.keep("good", now: 3)
        held.keep("bad\ntoken", now: 4)
        #expect(held.take(now: 4) == nil)
        held.keep("", now: 5)
        #expect(held.take(now: 5) == nil)
    }
}
