// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
@testable import HandoffAgent
@testable import HandoffContinuity
import HandoffModel
import Testing

/// HELLO negotiates the protocol revision down (docs/PROTOCOL.md §10): the
/// agent welcomes any app whose revisions meet its own, with the highest
/// both speak, and says which it chose.
@Suite(.serialized) struct AgentRevisionTests {
    static let app = try! Manifest(bundleIdentifier: "com.a.app", teamIdentifier: "TEAMA", activityTypes: ["com.a.edit"])

    func welcome(_ client: AgentTestClient, after hello: [UInt8]) throws -> AgentWelcome? {
        try client.sendRaw(hello)
        guard case .welcome(let w)? = client.next(within: 10, where: { $0.requestID == 1 })?.frame.message else { return nil }
        return w
    }

    /// HELLO exactly as a 0.1.0 app writes it: `protocol` 1, no `revision`.
    static func revisionOneHello() -> [UInt8] {
        let body: PropertyListValue = .dictionary([
            "protocol": .integer(1), "bundle": .string(app.bundleIdentifier), "team": .string(app.teamIdentifier),
            "types": .array(app.activityTypes.map { .string($0) }), "pid": .integer(Int64(getpid())), "observer": .boolean(false),
        ])
        return [1, 1, 0, 0, 0, 0, 0, 1] + BinaryPropertyList.encode(body)
    }

    @Test func aRevisionOneAppIsWelcomedAtRevisionOne() throws {
        let f = try AgentFixture()
        let client = try f.connect()
        let w = try #require(try welcome(client, after: Self.revisionOneHello()))
        #expect(w.revision == 1)
        #expect(try client.status() != nil)  // and served
    }

    @Test func aNewerAppIsWelcomedAtTheHighestBothSpeak() throws {
        let f = try AgentFixture()
        for (theirs, agreed) in [(1...9, ProtocolRevision.current), (2...2, 2), (1...2, 2)] {
            let client = try f.connect()
            let hello = try AgentFrame(.hello(AgentHello(revisions: theirs, manifest: Self.app, pid: getpid())), requestID: 1).encoded()
            let w = try #require(try welcome(client, after: hello), "revisions \(theirs)")
            #expect(w.revision == agreed, "revisions \(theirs)")
        }
    }

    @Test func aHelloWhoseRangeIsUpsideDownIsMalformed() throws {
        var body: [String: PropertyListValue] = [
            "protocol": .integer(2), "revision": .integer(1), "bundle": .string("com.a.app"), "team": .string("TEAMA"),
            "types": .array([]), "pid": .integer(1),
        ]
        #expect(throws: HandoffError.self) { try AgentBodyCoding.message(.hello, body, from: .app) }
        body["revision"] = .integer(2)
        #expect(try AgentBodyCoding.message(.hello, body, from: .app)
                == .hello(AgentHello(revisions: 2...2, manifest: try Manifest(bundleIdentifier: "com.a.app", teamIdentifier: "TEAMA"), pid: 1)))
    }

    /// A WELCOME from a 0.1.0 agent names no revision: revision 1.
    @Test func aWelcomeWithoutRevisionIsRevisionOne() throws {
        let body: [String: PropertyListValue] = [
            "agent": .string("0.1.0"), "deviceID": .data(Array(0..<16)), "deviceName": .string("Desk"),
            "role": .string("full"), "accountID": .string("00"),
        ]
        guard case .welcome(let w) = try AgentBodyCoding.message(.welcome, body, from: .agent) else {
            Issue.record("not a WELCOME")
            return
        }
        #expect(w.revision == ProtocolRevision.unannounced)
    }
}
