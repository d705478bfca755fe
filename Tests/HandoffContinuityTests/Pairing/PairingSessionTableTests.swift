// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffContinuity
import Testing

/// The sponsor's choice of whom to connect to next: a flood of sessions
/// from one address must not keep a genuine joiner from being tried.
@Suite struct PairingSessionTableTests {
    static func session(_ n: Int) -> [UInt8] { [UInt8](repeating: UInt8(n & 0xff), count: 16) }

    @Test func oneAddressAnnouncingManySessionsGetsAtMostEveryOtherAttempt() {
        var table = PairingSessionTable(limits: PairingLimits(), now: 0)
        var now = 0.0
        var tried: [String] = []
        for round in 0..<40 {
            now += 0.5
            // The flooder announces four new sessions per round, the joiner its one.
            for k in 0..<4 { _ = table.heard(PairingBeacon(port: 9, sessionID: Self.session(round * 4 + k)), from: "10.0.0.66", now: now) }
            _ = table.heard(PairingBeacon(port: 7, sessionID: Self.session(200)), from: "10.0.0.2", now: now)
            if let pick = table.next(now: now) { tried.append(pick.host) }
        }
        let genuine = tried.filter { $0 == "10.0.0.2" }.count
        // The joiner's one session is tried whenever its retry time allows
        // (every 2 s = every 4th round), never starved by the flood.
        #expect(genuine >= 9, "\(tried)")
        #expect(tried.count >= 30)
    }

    @Test func theSameSessionWaitsItsRetryTime() {
        var table = PairingSessionTable(limits: PairingLimits(), now: 0)
        _ = table.heard(PairingBeacon(port: 7, sessionID: Self.session(1)), from: "10.0.0.2", now: 0)
        #expect(table.next(now: 0.1) != nil)
        #expect(table.next(now: 1.0) == nil)
        _ = table.heard(PairingBeacon(port: 7, sessionID: Self.session(1)), from: "10.0.0.2", now: 2.0)
        #expect(table.next(now: 2.2) != nil)
    }
}
