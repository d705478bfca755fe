// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffModel
@testable import HandoffRuntime
import Testing

@Suite struct ContinuationTests {
    @Test func fullHandoffRestoresInOrderAndTellsTheSender() throws {
        let p = try Pair()
        let a = try shape()
        let activityDelegate = RecordingActivityDelegate(log: p.log)
        a.delegate = activityDelegate
        try p.sender.becomeCurrent(a)
        let views = (1...3).map { RecordingResponder("v\($0)", log: p.log) }
        p.receiverDelegate.restoreInto = views

        p.receiver.continueActivity(try #require(p.senderService.offered))
        #expect(p.log.all.isEmpty, "nothing before dispatch")
        try p.settle()
        #expect(p.log.all == ["willContinue:com.example.shapes.create-shape", "continue:com.example.shapes.create-shape",
                              "restore:v1", "restore:v2", "restore:v3", "wasContinued"])
        #expect(views[0].restored?["shape-type"] == .string("circle"))
        #expect(p.receiverDelegate.continued?.activityID == a.activityID)
    }

    @Test func theSenderSavesRightBeforeSending() throws {
        let p = try Pair()
        let a = try shape()
        let editor = RecordingResponder("editor", log: p.log)
        editor.onUpdate = { try? $0.addUserInfoEntries(["radius": .real(4.5)]) }
        editor.userActivity = a
        p.sender.addResponder(editor)
        try p.sender.becomeCurrent(a)
        a.needsSave = true  // the sender has not dispatched yet
        let view = RecordingResponder("view", log: p.log)
        p.receiverDelegate.restoreInto = [view]
        p.receiver.continueActivity(try #require(p.senderService.offered))
        try p.receiver.dispatch()  // willContinue + fetch: the request waits for the sender's main thread
        try p.sender.dispatch()    // the pending save runs, then the payload goes
        try p.settle()
        #expect(view.restored?["radius"] == .real(4.5))
        #expect(p.log.count("update:editor") == 1, "the save ran once, not again for the queued job")
    }

    @Test func aKeptRestorationHandlerWorksLaterOnceAndOnlyOnTheMainThread() throws {
        let p = try Pair()
        try p.sender.becomeCurrent(try shape())
        var kept: RestorationHandler?
        p.receiverDelegate.onContinue = { _, handler in kept = handler; return true }
        p.receiver.continueActivity(try #require(p.senderService.offered))
        try p.settle()
        let handler = try #require(kept)
        let view = RecordingResponder("view", log: p.log)

        let fromOtherThread = onOtherThread { () -> Int32 in
            do throws(HandoffError) { try handler.restore([view]); return 0 } catch { return error.code.rawValue }
        }
        #expect(fromOtherThread == HandoffError.Code.wrongThread.rawValue)
        #expect(view.restored == nil && !handler.wasCalled)

        try handler.restore([view])
        #expect(view.restored?["shape-type"] == .string("circle"))
        do {
            try handler.restore([view])
            Issue.record("second call accepted")
        } catch {
            #expect(error.code == .invalidState)
        }
        #expect(p.log.count("restore:") == 1)
    }

    @Test func aHandlerDroppedUnusedIsFine() throws {
        let p = try Pair()
        try p.sender.becomeCurrent(try shape())
        p.receiverDelegate.onContinue = { _, _ in false }
        p.receiver.continueActivity(try #require(p.senderService.offered))
        try p.settle()
        #expect(p.log.all == ["willContinue:com.example.shapes.create-shape", "continue:com.example.shapes.create-shape"])
        #expect(!p.log.all.contains("wasContinued"), "returning false does not confirm")
    }

    @Test func callbacksMayCallBackIntoTheLibrary() throws {
        let p = try Pair()
        let a = try shape()
        try p.sender.becomeCurrent(a)
        let receiverActivity = try shape(title: "mine")
        p.receiverDelegate.onContinue = { activity, handler in
            // Re-entrant calls from inside a callback:
            try? p.receiver.becomeCurrent(receiverActivity)
            receiverActivity.needsSave = true
            p.receiver.continueActivity(p.senderService.offered!)
            try? handler.restore([])
            return true
        }
        p.receiver.continueActivity(try #require(p.senderService.offered))
        try p.receiver.dispatch()
        try p.sender.dispatch()
        try p.receiver.dispatch()
        #expect(p.log.count("continue:") == 1)
        p.receiverDelegate.onContinue = nil
        try p.settle()
        #expect(p.receiver.currentActivity === receiverActivity)
        #expect(p.log.count("didUpdate:mine") == 1)
        #expect(p.log.count("willContinue:") == 2 && p.log.count("continue:") == 2)
    }
}
