// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffBase
import HandoffModel
@testable import HandoffRuntime
import Testing

/// The sending app hears, on its activity's delegate, a fetch that failed
/// on its side: too large, a missing required key, a main thread too late.
@Suite struct HandOffFailureTests {
    /// Asks the sender for `id` as a channel thread would; `waited` is what
    /// the service's wait answers (false: it had timed out).
    func fetch(_ p: Pair, _ id: ActivityID, waited: Bool = true) throws -> Result<[UInt8], HandoffError>? {
        let got = Locked<Result<[UInt8], HandoffError>?>(nil)
        p.sender.provideActivity(id) { r in got.withLock { $0 = r }; return waited }
        try p.settle()
        return got.withLock { $0 }
    }

    @Test func aUserInfoOverTheBudgetIsToldToTheSender() throws {
        let p = try Pair()
        let a = try shape()
        let delegate = RecordingActivityDelegate(log: p.log)
        a.delegate = delegate
        try a.setUserInfo(["blob": .data([UInt8](repeating: 7, count: 4000))])
        a.requiredUserInfoKeys = []
        try p.sender.becomeCurrent(a)
        let result = try fetch(p, a.activityID)
        guard case .failure(let e)? = result else { Issue.record("served: \(String(describing: result))"); return }
        #expect(e.code == .userInfoTooLarge)
        #expect(p.log.all == ["didFailToHandOff:4611"])
        withExtendedLifetime(delegate) {}
    }

    @Test func aMissingRequiredKeyIsToldToTheSender() throws {
        let p = try Pair()
        let a = try shape()
        let delegate = RecordingActivityDelegate(log: p.log)
        a.delegate = delegate
        a.requiredUserInfoKeys = ["document"]
        try p.sender.becomeCurrent(a)
        guard case .failure? = try fetch(p, a.activityID) else { Issue.record("served"); return }
        #expect(p.log.all == ["didFailToHandOff:\(HandoffError.Code.missingRequiredKey.rawValue)"])
        withExtendedLifetime(delegate) {}
    }

    @Test func anAnswerTooLateIsToldAs4610AndIsNotConfirmable() throws {
        let p = try Pair()
        let a = try shape()
        let delegate = RecordingActivityDelegate(log: p.log)
        a.delegate = delegate
        try p.sender.becomeCurrent(a)
        guard case .success? = try fetch(p, a.activityID, waited: false) else { Issue.record("not served"); return }
        #expect(p.log.all == ["didFailToHandOff:4610"])
        p.sender.activityWasContinued(a.activityID)
        try p.settle()
        #expect(p.log.count("wasContinued") == 0)
        withExtendedLifetime(delegate) {}
    }

    @Test func aFetchThatSucceedsTellsNoFailure() throws {
        let p = try Pair()
        let a = try shape()
        let delegate = RecordingActivityDelegate(log: p.log)
        a.delegate = delegate
        try p.sender.becomeCurrent(a)
        guard case .success? = try fetch(p, a.activityID) else { Issue.record("not served"); return }
        #expect(p.log.count("didFailToHandOff") == 0)
        withExtendedLifetime(delegate) {}
    }
}
