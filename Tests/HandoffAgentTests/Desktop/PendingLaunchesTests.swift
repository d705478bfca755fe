// SPDX-License-Identifier: MIT OR Apache-2.0
import Testing
@testable import HandoffAgent

// Times are injected (nanoseconds), so nothing here waits.

@Suite struct PendingLaunchesTests {
    let second: UInt64 = 1_000_000_000

    @Test func keptForThirtySeconds() {
        var pending = PendingLaunches<String>()
        #expect(pending.lifetime == 30 * second && pending.capacity == 32)
        pending.add("activity-1", for: "com.example.notes", now: 100 * second)
        #expect(pending.nextDeadline == 130 * second)
        #expect(pending.take(for: "com.example.other", now: 101 * second) == nil)
        #expect(pending.take(for: "com.example.notes", now: 130 * second - 1) == "activity-1")
        #expect(pending.take(for: "com.example.notes", now: 101 * second) == nil, "handed out twice")
        #expect(pending.isEmpty && pending.nextDeadline == nil)
    }

    /// An Exec started after D-Bus activation failed gets the full time;
    /// a choice already taken (the app connected) or expired is not revived.
    @Test func renewedForAFallbackLaunch() {
        var pending = PendingLaunches<String>()
        pending.add("activity-1", for: "a.b", now: 0)
        #expect(pending.choice(for: "a.b", now: 20 * second) == "activity-1")
        #expect(pending.renew(for: "a.b", now: 25 * second) == true)
        #expect(pending.nextDeadline == 55 * second)
        #expect(pending.choice(for: "a.b", now: 54 * second) == "activity-1", "looking does not take it")
        #expect(pending.choice(for: "a.b", now: 55 * second) == nil)
        #expect(pending.renew(for: "a.b", now: 55 * second) == false, "an expired one is not revived")
        #expect(pending.renew(for: "c.d", now: 1) == false)
        #expect(pending.take(for: "a.b", now: 54 * second) == "activity-1")
        #expect(pending.renew(for: "a.b", now: 54 * second) == false, "taken: the app connected")
    }

    @Test func expiredOnesAreNeverHandedOut() {
        var pending = PendingLaunches<Int>()
        pending.add(1, for: "a.b", now: 0)
        #expect(pending.take(for: "a.b", now: 30 * second) == nil)
        #expect(pending.isEmpty, "an expired one is dropped when asked for")

        pending.add(2, for: "a.b", now: 0)
        pending.add(3, for: "c.d", now: 10 * second)
        #expect(pending.expire(now: 29 * second) == [])
        #expect(pending.expire(now: 30 * second) == [2])
        #expect(pending.count == 1 && pending.nextDeadline == 40 * second)
        #expect(pending.expire(now: UInt64.max) == [3])
        #expect(pending.isEmpty)
    }

    @Test func oneChoicePerAppTheLatestWins() {
        var pending = PendingLaunches<String>()
        #expect(pending.add("first", for: "a.b", now: 0) == [])
        #expect(pending.add("second", for: "a.b", now: 5 * second) == ["first"])
        #expect(pending.count == 1)
        #expect(pending.take(for: "a.b", now: 33 * second) == "second")
    }

    @Test func boundedTheOldestGoesFirst() {
        var pending = PendingLaunches<Int>(capacity: 3)
        for i in 0..<3 { #expect(pending.add(i, for: "app.n\(i)", now: UInt64(i)) == []) }
        #expect(pending.add(3, for: "app.n3", now: 3) == [0])
        #expect(pending.count == 3)
        #expect(pending.take(for: "app.n0", now: 4) == nil)
        #expect(pending.take(for: "app.n3", now: 4) == 3)
        // Bundle ids match byte for byte: "é" precomposed is not "e" + U+0301.
        pending.add(9, for: "app.\u{E9}", now: 0)
        #expect(pending.take(for: "app.e\u{301}", now: 1) == nil)
        #expect(pending.take(for: "app.\u{E9}", now: 1) == 9)
    }

    @Test func deadlinesSaturate() {
        var pending = PendingLaunches<Int>()
        pending.add(1, for: "a.b", now: UInt64.max - 1)
        #expect(pending.nextDeadline == UInt64.max)
        #expect(pending.take(for: "a.b", now: UInt64.max - 1) == 1)
    }
}
