// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffModel
@testable import HandoffRuntime
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct CurrentActivityTests {
    @Test func becomeAndResignCurrentAdvertiseAndWithdraw() throws {
        let p = try Pair()
        let a = try shape()
        try p.sender.becomeCurrent(a)
        #expect(p.sender.currentActivity === a)
        #expect(p.senderService.advertised?.activityID == a.activityID)
        #expect(p.senderService.advertised?.teamIdentifier == "TEAM1")
        p.sender.resignCurrent(a)
        #expect(p.sender.currentActivity == nil)
        #expect(p.senderService.advertised == nil)
    }

    @Test func resigningAnotherActivityChangesNothing() throws {
        let p = try Pair()
        let a = try shape(), b = try shape()
        try p.sender.becomeCurrent(a)
        p.sender.resignCurrent(b)
        #expect(p.sender.currentActivity === a)
    }

    @Test func invalidatedActivityIsWithdrawnAndNeverCurrentAgain() throws {
        let p = try Pair()
        let a = try shape()
        try p.sender.becomeCurrent(a)
        a.invalidate()
        #expect(p.senderService.advertised == nil)
        #expect(p.sender.currentActivity == nil)
        do {
            try p.sender.becomeCurrent(a)
            Issue.record("became current")
        } catch {
            #expect(error.code == .invalidState)
        }
        a.invalidate()  // harmless
    }

    /// Apple's Handoff shows a current activity's new title or page on the
    /// other devices: a change re-advertises it (only a change goes out).
    @Test func changingTheCurrentActivityAdvertisesItAgain() throws {
        let p = try Pair()
        let a = try shape()
        a.title = "First"
        try p.sender.becomeCurrent(a)
        let before = p.senderService.history.count
        a.title = "Second"
        #expect(p.senderService.advertised?.title == "Second")
        try a.setWebpageURL(URLReference(string: "https://example.com/2")!)
        #expect(p.senderService.advertised?.webpageURL?.absoluteString == "https://example.com/2")
        a.title = "Second"  // no change: nothing more goes out
        #expect(p.senderService.history.count == before + 2)
        a.isEligibleForHandoff = false
        #expect(p.senderService.advertised == nil)
        a.isEligibleForHandoff = true
        #expect(p.senderService.advertised?.title == "Second")
        // Not current: nothing goes out.
        let b = try shape()
        b.title = "Elsewhere"
        #expect(p.senderService.advertised?.activityID == a.activityID)
    }

    @Test func ineligibleActivityIsNotAdvertised() throws {
        let p = try Pair()
        let a = try shape()
        a.isEligibleForHandoff = false
        try p.sender.becomeCurrent(a)
        #expect(p.sender.currentActivity === a)
        #expect(p.senderService.advertised == nil)
    }

    @Test func expiredActivityIsWithdrawnWhenItsTimerFires() throws {
        let p = try Pair()
        let a = try shape()
        try a.setExpirationDate(Timestamp(timeIntervalSinceNow: 0.05))
        try p.sender.becomeCurrent(a)
        #expect(p.senderService.advertised != nil)
        #expect(p.sender.queue.nextTimeoutMilliseconds > 0)
        #expect(try p.sender.queue.run(timeoutMilliseconds: 300) == false)
        #expect(p.senderService.advertised == nil)
        // And a fetch for it is refused.
        try a.setExpirationDate(nil)
        try p.sender.becomeCurrent(a)
        let offered = try #require(p.senderService.offered)
        try a.setExpirationDate(Timestamp(timeIntervalSinceNow: -1))
        p.receiver.continueActivity(offered)
        try p.settle()
        #expect(p.log.all.contains("didFail:\(a.activityType):4608"))
    }

    @Test func savesThatChangeTheTitleReadvertise() throws {
        let p = try Pair()
        let a = try shape(title: "one")
        try p.sender.becomeCurrent(a)
        let r = RecordingResponder("r", log: p.log)
        r.onUpdate = { $0.title = "two" }
        r.userActivity = a
        p.sender.addResponder(r)
        a.needsSave = true
        try p.sender.dispatch()
        #expect(p.senderService.advertised?.title == "two")
        #expect(p.senderService.history.compactMap { $0?.title } == ["one", "two"])
    }

    /// The agent advertises what the person used last: returning to an app
    /// (becomeCurrent again, a save) says so even when nothing changed.
    @Test func becomingCurrentAgainOrSavingRepeatsTheAdvertisement() throws {
        let p = try Pair()
        let a = try shape(title: "one")
        try p.sender.becomeCurrent(a)
        try p.sender.becomeCurrent(a)
        #expect(p.senderService.history.count == 2)
        a.needsSave = true
        try p.sender.dispatch()
        #expect(p.senderService.history.count == 3)
        #expect(p.senderService.history.allSatisfy { $0?.activityID == a.activityID })
        p.sender.resignCurrent(a)
        p.sender.resignCurrent(a)
        #expect(p.senderService.history.count == 4 && p.senderService.history.last! == nil)
    }
}
