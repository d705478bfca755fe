// SPDX-License-Identifier: MIT OR Apache-2.0
import Testing
import HandoffBase
import HandoffModel
import HandoffTestSupport
@testable import HandoffContinuity
@testable import HandoffRuntime

/// From revision 4 a sender describes every `file:` URL (PROTOCOL.md
/// §12): a payload fetched on a connection that agreed on 4 which names
/// one without `documents` is malformed, so a peer cannot hand the app an
/// absolute path of its own. A revision-3 peer's payload passes as it
/// always did.
@Suite(.serialized) struct DocumentRevisionTests {
    typealias Hostile = DocumentHostileTests

    static func undescribed() throws -> (UserActivity, [UInt8]) {
        let activity = try UserActivity(activityType: "com.example.app.edit")
        return (activity, try Hostile.payload(activity, documents: nil))
    }

    @Test func aRevision4PayloadWithAnUndescribedFileURLIsMalformed() throws {
        let homes = try DocumentHandoffTests.Homes()
        let before = Hostile.tree(homes.root)
        let (activity, payload) = try Self.undescribed()
        let outcome = try Hostile.receive(homes, activity: activity, payload: payload, serve: Hostile.refuseToServe)
        #expect(outcome.failed == 4608, "\(outcome.delegate.events)")
        #expect(outcome.message.contains("cannot be read"), "\(outcome.message)")
        #expect(outcome.message.contains("without describing them"), "\(outcome.message)")
        #expect(outcome.delegate.restoredInfo == nil)
        #expect(outcome.fake.openCount == 0)
        Hostile.expectUntouched(before, homes)
    }

    @Test func aRevision3PayloadKeepsItsFileURL() throws {
        let homes = try DocumentHandoffTests.Homes()
        let (activity, payload) = try Self.undescribed()
        let outcome = try Hostile.receive(homes, activity: activity, payload: payload,
                                          serve: Hostile.refuseToServe, revisions: 3...3)
        let info = try #require(outcome.delegate.restoredInfo, "\(outcome.delegate.events) \(outcome.message)")
        #expect(info[Hostile.key] == .url(try #require(URLReference(string: Hostile.senderURL))))
        #expect(info["HandoffDocumentOrigins"] == nil)
    }

    /// A payload kept as sent (history) is checked as it is fetched
    /// (`fetchAsSent`), with the revision of its connection; resolved later
    /// (revision nil) it passes as saved.
    @Test func aPayloadKeptAsSentIsCheckedAtItsRevision() throws {
        let (_, payload) = try Self.undescribed()
        #expect(throws: HandoffError.self) { try DocumentReceiver.check(payload, revision: 4).get() }
        #expect(try DocumentReceiver.check(payload, revision: 3).get() == payload)
        let plain = try UserActivity(activityType: "com.example.app.edit")
        try plain.setUserInfo(["n": .integer(1)])
        let bytes = try ActivityCoding.encode(plain)
        #expect(try DocumentReceiver.check(bytes, revision: 4).get() == bytes)
        let receiver = DocumentReceiver { DocumentPlaces(home: "/nonexistent") }
        #expect(try receiver.resolve(payload, revision: nil, from: "saved", bring: nil).get() == payload)
    }
}
