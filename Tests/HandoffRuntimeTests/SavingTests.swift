// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffRuntime
import Testing

@Suite struct SavingTests {
    @Test func manyNeedsSaveMakeOneSave() throws {
        let p = try Pair()
        let a = try shape()
        let r1 = RecordingResponder("r1", log: p.log)
        let r2 = RecordingResponder("r2", log: p.log)
        r1.userActivity = a
        r2.userActivity = a
        p.sender.addResponder(r1)
        p.sender.addResponder(r2)
        let delegate = RecordingActivityDelegate(log: p.log)  // the activity holds it weakly
        a.delegate = delegate
        for _ in 0..<50 { a.needsSave = true }
        #expect(p.log.all.isEmpty, "nothing runs before dispatch")
        try p.sender.dispatch()
        #expect(p.log.all == ["update:r1", "update:r2", "willSave", "didUpdate:Circle"])
        #expect(!a.needsSave)
        try p.sender.dispatch()
        #expect(p.log.all.count == 4, "one save only")
        withExtendedLifetime(delegate) {}
    }

    @Test func respondersRunInRegistrationOrderAndOnlyForTheirActivity() throws {
        let p = try Pair()
        let a = try shape(title: "A")
        let b = try shape(title: "B")
        let responders = (0..<4).map { RecordingResponder("r\($0)", log: p.log) }
        responders[0].userActivity = a
        responders[1].userActivity = b
        responders[2].userActivity = a
        responders[3].userActivity = a
        responders.forEach(p.sender.addResponder)
        a.needsSave = true
        try p.sender.dispatch()
        #expect(p.log.all == ["update:r0", "update:r2", "update:r3", "didUpdate:A"])

        p.log.clear()
        responders[2].userActivity = b  // switch
        b.needsSave = true
        try p.sender.dispatch()
        #expect(p.log.all == ["update:r1", "update:r2", "didUpdate:B"])
    }

    @Test func removedOrReleasedRespondersAreNotCalled() throws {
        let p = try Pair()
        let a = try shape()
        let kept = RecordingResponder("kept", log: p.log)
        let removed = RecordingResponder("removed", log: p.log)
        kept.userActivity = a
        removed.userActivity = a
        p.sender.addResponder(kept)
        p.sender.addResponder(removed)
        do {
            let released = RecordingResponder("released", log: p.log)
            released.userActivity = a
            p.sender.addResponder(released)
        }
        p.sender.removeResponder(removed)
        a.needsSave = true
        try p.sender.dispatch()
        #expect(p.log.all == ["update:kept", "didUpdate:Circle"])
    }

    @Test func aSaveMayAskForAnotherWhichRunsAtTheNextDispatch() throws {
        let p = try Pair()
        let a = try shape()
        let r = RecordingResponder("r", log: p.log)
        var rounds = 0
        r.onUpdate = { activity in
            rounds += 1
            if rounds < 3 { activity.needsSave = true }  // re-entrant
        }
        r.userActivity = a
        p.sender.addResponder(r)
        a.needsSave = true
        try p.sender.dispatch()
        #expect(p.log.count("update:") == 1)
        try p.sender.dispatch()
        try p.sender.dispatch()
        try p.sender.dispatch()
        #expect(p.log.count("update:") == 3)
    }

    @Test func needsSaveSetBeforeAdoptionIsHonoured() throws {
        let p = try Pair()
        let a = try shape()
        a.needsSave = true  // no owner yet
        let r = RecordingResponder("r", log: p.log)
        r.userActivity = a
        p.sender.addResponder(r)
        try p.sender.dispatch()
        #expect(p.log.all.first == "update:r")
    }
}
