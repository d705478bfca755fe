// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Testing
import HandoffBase
import HandoffModel
import HandoffTestSupport
@testable import HandoffContinuity
@testable import HandoffRuntime

/// A document's name comes from a file system or another device: no
/// message that names it carries a character a terminal acts on (ESC
/// sequences) or one that reorders what is shown (U+202E).
@Suite(.serialized) struct DocumentTextTests {
    typealias Hostile = DocumentHostileTests
    /// `ESC [ 2 J` clears a terminal; U+202E shows `txt.exe` as `exe.txt`.
    static let name = "plan\u{1B}[2J\u{202E}txt.exe"

    static func expectClean(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!message.unicodeScalars.contains { DocumentText.isUnsafe($0) }, "\(message.debugDescription)", sourceLocation: sourceLocation)
    }

    @Test func everyUnsafeCharacterIsEscaped() {
        let unsafe: [UInt32] = Array(0x00...0x1F) + Array(0x7F...0x9F) + [0x061C, 0x200E, 0x200F, 0x2028, 0x2029]
            + Array(0x202A...0x202E) + Array(0x2066...0x2069)
        for value in unsafe {
            let text = "a" + String(Unicode.Scalar(value)!) + "b"
            let shown = DocumentText.escaped(text)
            Self.expectClean(shown)
            #expect(shown.hasPrefix("a\\") && shown.hasSuffix("b"), "\(value): \(shown)")
        }
        #expect(DocumentText.escaped(Self.name) == "plan\\x1b[2J\\u{202e}txt.exe")
        #expect(DocumentText.escaped("notes/plan é ü 東京.odt") == "notes/plan é ü 東京.odt")
        #expect(DocumentText.escaped("a\\x1b") == "a\\\\x1b")
    }

    /// The receiver's own message (over the limit) names the document.
    @Test func theReceiverNamesADocumentEscaped() throws {
        let homes = try DocumentHandoffTests.Homes()
        let activity = try UserActivity(activityType: "com.example.app.edit")
        var settings = DocumentSettings()
        settings.maxSize = 10
        let entry = Hostile.entry(path: "notes/" + Self.name, name: Self.name)
        let outcome = try Hostile.receive(homes, activity: activity,
                                          payload: try Hostile.payload(activity, documents: .dictionary([Hostile.senderURL: entry])),
                                          serve: Hostile.refuseToServe, settings: settings)
        #expect(outcome.failed == 4608)
        #expect(outcome.message.contains("plan\\x1b[2J\\u{202e}txt.exe"), "\(outcome.message.debugDescription)")
        Self.expectClean(outcome.message)
    }

    /// A peer's refusal is its own words: shown escaped too.
    @Test func aPeersRefusalIsShownEscaped() throws {
        let homes = try DocumentHandoffTests.Homes()
        _ = system("mkdir -p '\(homes.b)/notes'")
        let activity = try UserActivity(activityType: "com.example.app.edit")
        let refuse: Hostile.Serve = { connection in
            try? connection.send(ExchangeMessage.error(code: 4608, message: "no \u{1B}[2J\u{202E}txt.exe").frame, timeout: 5)
            _ = try? connection.receive(timeout: 5)
        }
        let outcome = try Hostile.receive(homes, activity: activity,
                                          payload: try Hostile.payload(activity, documents: .dictionary([Hostile.senderURL: Hostile.entry()])),
                                          serve: refuse)
        #expect(outcome.failed == 4608)
        #expect(outcome.message.contains("no \\x1b[2J\\u{202e}txt.exe"), "\(outcome.message.debugDescription)")
        Self.expectClean(outcome.message)
    }

    /// The sender's message about a file it cannot describe.
    @Test func theSenderNamesADocumentEscaped() throws {
        let places = DocumentPlaces(home: "/nonexistent")
        let error = #expect(throws: HandoffError.self) { try places.describe(path: "/nonexistent/" + Self.name) }
        Self.expectClean(error?.message ?? "")
        #expect(error?.message.contains("\\u{202e}") == true, "\(error?.message.debugDescription ?? "")")
    }

    /// A brought copy's name on disk has none of them either.
    @Test func aBroughtCopysNameHasNoUnsafeCharacter() {
        let copy = BroughtCopy.copyName(BroughtCopy.safeName(Self.name), device: BroughtCopy.safeDevice("desk\u{202E}"), number: 1)
        #expect(!copy.unicodeScalars.contains { DocumentText.isUnsafe($0) }, "\(copy.debugDescription)")
    }
}
