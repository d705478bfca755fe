// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffBase
import HandoffModel
@testable import HandoffRuntime
import Testing

/// The sender's delegate hears one `wasContinued` per CONFIRM that follows
/// a fetch the other device received: every continuation, never twice for
/// one fetch, never for an id it did not send.
@Suite struct ConfirmationTests {
    /// Serves `id` as a channel thread would; `received` is what the
    /// service's wait answers (false: it had timed out).
    func serve(_ p: Pair, _ id: ActivityID, received: Bool = true) throws -> Result<[UInt8], HandoffError>? {
        let got = Locked<Result<[UInt8], HandoffError>?>(nil)
        p.sender.provideActivity(id) { r in got.withLock { $0 = r }; return received }
        try p.settle()
        return got.withLock { $0 }
    }

    @Test func anActivityContinuedFiveTimesIsHeardFiveTimes() throws {
        let p = try Pair()
        let a = try shape()
        let delegate = RecordingActivityDelegate(log: p.log)  // held weakly by the activity
        a.delegate = delegate
        try p.sender.becomeCurrent(a)
        let offered = try #require(p.senderService.offered)
        for round in 1...5 {
            p.receiver.continueActivity(offered)
            try p.settle()
            #expect(p.log.count("wasContinued") == round, "round \(round)")
        }
        #expect(p.log.count("continue:") == 5)
        withExtendedLifetime(delegate) {}
    }

    @Test func aDuplicateConfirmOfOneFetchIsHeardOnce() throws {
        let p = try Pair()
        let a = try shape()
        let delegate = RecordingActivityDelegate(log: p.log)  // held weakly by the activity
        a.delegate = delegate
        try p.sender.becomeCurrent(a)
        guard case .success? = try serve(p, a.activityID) else { Issue.record("not served"); return }
        p.sender.activityWasContinued(a.activityID)
        p.sender.activityWasContinued(a.activityID)
        try p.settle()
        #expect(p.log.count("wasContinued") == 1)

        // Two fetches, three CONFIRMs: two heard.
        _ = try serve(p, a.activityID)
        _ = try serve(p, a.activityID)
        for _ in 0..<3 { p.sender.activityWasContinued(a.activityID) }
        try p.settle()
        #expect(p.log.count("wasContinued") == 3)
        withExtendedLifetime(delegate) {}
    }

    @Test func aConfirmForAnIdNeverServedIsIgnored() throws {
        let p = try Pair()
        let a = try shape()
        let delegate = RecordingActivityDelegate(log: p.log)  // held weakly by the activity
        a.delegate = delegate
        try p.sender.becomeCurrent(a)
        p.sender.activityWasContinued(a.activityID)  // current, but never fetched
        p.sender.activityWasContinued(ActivityID())
        try p.settle()
        #expect(p.log.count("wasContinued") == 0)
        withExtendedLifetime(delegate) {}
    }

    @Test func aPayloadTheServiceNoLongerWaitedForIsNotConfirmable() throws {
        let p = try Pair()
        let a = try shape()
        let delegate = RecordingActivityDelegate(log: p.log)  // held weakly by the activity
        a.delegate = delegate
        try p.sender.becomeCurrent(a)
        guard case .success? = try serve(p, a.activityID, received: false) else { Issue.record("not served"); return }
        p.sender.activityWasContinued(a.activityID)
        try p.settle()
        #expect(p.log.count("wasContinued") == 0)
        withExtendedLifetime(delegate) {}
    }
}
