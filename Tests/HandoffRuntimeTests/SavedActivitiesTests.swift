// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffBase
import HandoffModel
@testable import HandoffRuntime
import Testing

/// The app's side of the history (docs/history.md): what it hands to a
/// service that takes INDEX, and deletions answered on the main thread.
@Suite struct SavedActivitiesTests {
    /// A service that records INDEX and FORGET (the agent client's role);
    /// FORGET answers with `answer` on the calling thread.
    final class HistoryService: ContinuityService, @unchecked Sendable {
        let indexed = Locked<[(ActivityID, [UInt8])]>([])
        let forgotten = Locked<[SavedActivitySelection]>([])
        var answer: Result<Void, HandoffError> = .success(())
        func attach(_ endpoint: any ContinuityEndpoint) {}
        func advertise(_ advertisement: Advertisement?) {}
        func fetch(_ remote: RemoteActivity, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
            completion(.failure(HandoffError(.connectionUnavailable, "none")))
        }
        func confirmContinued(_ remote: RemoteActivity) {}
        func detach() {}
        var takesIndex: Bool { true }
        func index(_ activityID: ActivityID, payload: [UInt8]) { indexed.withLock { $0.append((activityID, payload)) } }
        func forgetSaved(_ selection: SavedActivitySelection,
                         completion: @escaping @Sendable (Result<Void, HandoffError>) -> Void) {
            forgotten.withLock { $0.append(selection) }
            completion(answer)
        }
    }

    func app(_ service: HistoryService?) throws -> Application {
        let manifest = try Manifest(bundleIdentifier: "com.example.notes", teamIdentifier: "TEAM1",
                                    activityTypes: ["com.example.notes.edit"])
        return try Application(manifest: manifest, delegate: RecordingDelegate(log: Log()), continuity: service)
    }

    func note(search: Bool, handoff: Bool = true) throws -> UserActivity {
        let a = try UserActivity(activityType: "com.example.notes.edit")
        a.title = "Budget"
        try a.setUserInfo(["body": .string("invoices")])
        a.searchableUserInfoKeys = ["body"]
        a.isEligibleForSearch = search
        a.isEligibleForHandoff = handoff
        return a
    }

    static func ok(_ result: Result<Void, HandoffError>) -> Bool { (try? result.get()) != nil }

    func settle(_ app: Application) throws {
        for _ in 0..<100 where try app.dispatch() == 0 { return }
    }

    @Test func anActivityEligibleForSearchIsIndexedOncePerRevision() throws {
        let service = HistoryService()
        let app = try app(service)
        let a = try note(search: true)
        try app.becomeCurrent(a)
        try settle(app)
        let first = service.indexed.withLock { $0 }
        #expect(first.count == 1)
        #expect(first.first?.0 == a.activityID)
        let decoded = try ActivityCoding.decode(try #require(first.first?.1))
        #expect(decoded.searchableUserInfoKeys == ["body"] && decoded.isEligibleForSearch)
        // Nothing changed: no second INDEX, however often the loop runs.
        try settle(app)
        #expect(service.indexed.withLock { $0.count } == 1)
        // A save with new userInfo: indexed again, once.
        a.needsSave = true
        try a.addUserInfoEntries(["body": .string("receipts")])
        try settle(app)
        let after = service.indexed.withLock { $0 }
        #expect(after.count == 2)
        let saved = try ActivityCoding.decode(try #require(after.last?.1))
        #expect(saved.userInfo["body"] == .string("receipts"))
    }

    @Test func onlyWhatIsEligibleForSearchIsIndexedHandoffOrNot() throws {
        let service = HistoryService()
        let app = try app(service)
        try app.becomeCurrent(try note(search: false))
        try settle(app)
        #expect(service.indexed.withLock { $0.isEmpty })
        let searchOnly = try note(search: true, handoff: false)
        try app.becomeCurrent(searchOnly)
        try settle(app)
        #expect(service.indexed.withLock { $0.map(\.0) } == [searchOnly.activityID])
    }

    @Test func aDeletionAnswersOnceInsideDispatch() throws {
        let service = HistoryService()
        let app = try app(service)
        let heard = Locked<[String]>([])
        try app.deleteSavedActivities(.identifiers(["doc-1", "doc-2"])) { result in
            heard.withLock { $0.append("ids:\(Self.ok(result))") }
        }
        try app.deleteSavedActivities(.all) { result in heard.withLock { $0.append("all:\(Self.ok(result))") } }
        try app.deleteSavedActivities(.identifiers([])) { result in heard.withLock { $0.append("none:\(Self.ok(result))") } }
        #expect(heard.withLock { $0.isEmpty }, "nothing runs before dispatch")
        #expect(service.forgotten.withLock { $0 } == [.identifiers(["doc-1", "doc-2"]), .all])
        try settle(app)
        #expect(heard.withLock { $0 } == ["ids:true", "all:true", "none:true"])
        service.answer = .failure(HandoffError(.connectionUnavailable, "the agent went away"))
        try app.deleteSavedActivities(.all) { result in heard.withLock { $0.append("failed:\(!Self.ok(result))") } }
        try settle(app)
        #expect(heard.withLock { $0.last } == "failed:true")
    }

    @Test func withoutContinuityADeletionFailsWith4609() throws {
        let app = try app(nil)
        let codes = Locked<[Int32]>([])
        try app.deleteSavedActivities(.all) { result in
            if case .failure(let e) = result { codes.withLock { $0.append(e.code.rawValue) } }
        }
        try settle(app)
        #expect(codes.withLock { $0 } == [4609])
    }

    @Test func identifiersAreBounded() throws {
        let service = HistoryService()
        let app = try app(service)
        for bad in [Array(repeating: "x", count: 513), [""], [String(repeating: "x", count: 4097)]] {
            #expect(throws: HandoffError.self) {
                try app.deleteSavedActivities(.identifiers(bad)) { _ in Issue.record("called") }
            }
        }
        try app.deleteSavedActivities(.identifiers(Array(repeating: "x", count: 512))) { _ in }
        #expect(service.forgotten.withLock { $0.count } == 1)
    }
}
