// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffModel
@testable import HandoffRuntime
import Testing

/// For each willContinue, exactly one of continue or didFail follows, and
/// didFail carries one of 4608-4611.
@Suite struct FailureContractTests {
    func outcome(_ p: Pair) -> (will: Int, continued: Int, failed: Int) {
        (p.log.count("willContinue:"), p.log.count("continue:"), p.log.count("didFail:"))
    }

    @Test func connectionFailureIs4609() throws {
        let p = try Pair()
        try p.sender.becomeCurrent(try shape())
        let offered = try #require(p.senderService.offered)
        p.senderService.failFetches(with: HandoffError(.connectionUnavailable, "refused"))
        p.receiver.continueActivity(offered)
        try p.settle()
        #expect(outcome(p) == (1, 0, 1))
        #expect(p.receiverDelegate.lastError?.code.rawValue == 4609)
    }

    @Test func noContinuityServiceIs4609() throws {
        let log = Log()
        let delegate = RecordingDelegate(log: log)
        let app = try Application(manifest: try Manifest(bundleIdentifier: "com.example.a", teamIdentifier: "T1"), delegate: delegate)
        app.continueActivity(RemoteActivity(deviceID: "x", deviceName: "x", activityID: ActivityID(), activityType: "com.example.a.b"))
        try app.dispatch()
        #expect(log.all == ["willContinue:com.example.a.b", "didFail:com.example.a.b:4609"])
    }

    @Test func activityNoLongerOfferedIs4608() throws {
        let p = try Pair()
        let a = try shape()
        try p.sender.becomeCurrent(a)
        let offered = try #require(p.senderService.offered)
        p.sender.resignCurrent(a)
        p.receiver.continueActivity(offered)
        try p.settle()
        #expect(outcome(p) == (1, 0, 1))
        #expect(p.receiverDelegate.lastError?.code.rawValue == 4608)
    }

    @Test func oversizeUserInfoIs4611() throws {
        let p = try Pair()
        let a = try shape()
        try p.sender.becomeCurrent(a)
        try a.addUserInfoEntries(["blob": .data([UInt8](repeating: 0, count: 5000))])
        p.receiver.continueActivity(try #require(p.senderService.offered))
        try p.settle()
        #expect(outcome(p) == (1, 0, 1))
        #expect(p.receiverDelegate.lastError?.code.rawValue == 4611)
    }

    @Test func missingRequiredKeyIs4608() throws {
        let p = try Pair()
        let a = try shape()
        try a.setUserInfo([:])
        try p.sender.becomeCurrent(a)
        p.receiver.continueActivity(try #require(p.senderService.offered))
        try p.settle()
        #expect(outcome(p) == (1, 0, 1))
        let error = try #require(p.receiverDelegate.lastError)
        #expect(error.code.rawValue == 4608)
        #expect(error.message.contains("shape-type"))
    }

    @Test func aMalformedPayloadIs4608() throws {
        final class Garbage: ContinuityService, @unchecked Sendable {
            func attach(_ endpoint: any ContinuityEndpoint) {}
            func advertise(_ advertisement: Advertisement?) {}
            func fetch(_ remote: RemoteActivity, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
                completion(.success(Array("bplist00 but not really".utf8)))
                completion(.success([]))  // a second completion is ignored
            }
            func confirmContinued(_ remote: RemoteActivity) {}
            func detach() {}
        }
        let log = Log()
        let app = try Application(manifest: try Manifest(bundleIdentifier: "com.example.a", teamIdentifier: "T1"),
                                  delegate: RecordingDelegate(log: log), continuity: Garbage())
        app.continueActivity(RemoteActivity(deviceID: "x", deviceName: "x", activityID: ActivityID(), activityType: "com.example.a.b"))
        try app.dispatch()
        try app.dispatch()
        #expect(log.all == ["willContinue:com.example.a.b", "didFail:com.example.a.b:4608"])
    }

    @Test func manyContinuesEachGetExactlyOneOutcome() throws {
        let p = try Pair()
        let a = try shape()
        try p.sender.becomeCurrent(a)
        let offered = try #require(p.senderService.offered)
        for i in 0..<20 {
            if i == 10 { p.sender.resignCurrent(a) }
            p.receiver.continueActivity(offered)
        }
        try p.settle()
        let (will, continued, failed) = outcome(p)
        #expect(will == 20)
        #expect(continued + failed == 20)
    }
}
