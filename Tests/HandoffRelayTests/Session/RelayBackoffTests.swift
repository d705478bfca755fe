// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffContinuity
@testable import HandoffRelay
import Testing

/// The relay's reconnection waits (docs/agent.md §12 "Reconnecting"): 1 s
/// doubling to 60 s, a refusal 5 min at once, and a healthy connection
/// starts the count again.
@Suite struct RelayBackoffTests {
    @Test func unreachableDoublesToTheCap() {
        var backoff = RelayBackoff()
        let waits = (0..<10).map { _ in backoff.failed(refused: false) }
        #expect(waits == [1, 2, 4, 8, 16, 32, 60, 60, 60, 60])
    }

    @Test func aRefusalWaitsTheLongestAtOnce() {
        var backoff = RelayBackoff()
        #expect(backoff.failed(refused: true) == RelayBackoff.longest)
        #expect(RelayBackoff.longest == 300 && RelayBackoff.cap == 60)
    }

    @Test func aHealthyConnectionStartsAgainAtTheFirstStep() {
        var backoff = RelayBackoff()
        for _ in 0..<12 { _ = backoff.failed(refused: false) }
        backoff.succeeded()
        #expect(backoff.failed(refused: false) == RelayBackoff.first)
        #expect(backoff.failed(refused: false) == 2)
    }
}
