// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
import Testing

/// A group's wait ends when its threads are gone, never before, and a
/// thread of the group waiting on it (a host freeing its application in a
/// callback) does not wait for itself.
@Suite struct ThreadGroupTests {
    @Test func waitingEndsOnlyWhenEveryThreadIsGone() {
        let group = ThreadGroup()
        let gate = Awaitable(false)
        for _ in 0..<3 {
            #expect(group.start(named: "hoff-test") { gate.wait(until: { $0 }, seconds: 10) { _, _ in } })
        }
        #expect(group.alive == 3)
        #expect(!group.waitUntilGone(seconds: 0.05))  // still blocked on the gate
        gate.update { $0 = true }
        #expect(group.waitUntilGone(seconds: 10))
        #expect(group.alive == 0)
    }

    @Test func aThreadOfTheGroupDoesNotWaitForItself() {
        let group = ThreadGroup()
        let result = Awaitable<Bool?>(nil)
        let gate = Awaitable(false)
        // A sibling that outlives the first wait, then ends.
        group.start { gate.wait(until: { $0 }, seconds: 10) { _, _ in } }
        group.start {
            let whileSiblingRuns = group.waitUntilGone(seconds: 0.05)
            gate.update { $0 = true }
            let afterSibling = group.waitUntilGone(seconds: 10)
            result.update { $0 = !whileSiblingRuns && afterSibling }
        }
        let ok = result.wait(until: { $0 != nil }, seconds: 20) { value, _ in value }
        #expect(ok == true)
        #expect(group.waitUntilGone(seconds: 10))
    }
}
