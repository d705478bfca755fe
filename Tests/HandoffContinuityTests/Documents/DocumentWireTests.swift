// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Testing
import HandoffBase
import HandoffModel
import HandoffTestSupport
@testable import HandoffContinuity

/// The pure parts of documents on the wire (PROTOCOL.md §12): entries and
/// their rules, the file URLs of a userInfo, the quick scans that spare a
/// payload without documents its decoding, the two frames.
@Suite struct DocumentWireTests {
    static let hash = Array(UInt8(0)..<32)
    static let facts = DocumentFacts(size: 1234, modified: Timestamp(timeIntervalSinceReferenceDate: 700_000_000.25), sha256: hash)

    static func location(_ place: DocumentPlace, root: String? = nil, path: String? = "notes/plan.odt",
                         name: String = "plan.odt") throws -> DocumentLocation {
        try DocumentLocation(place: place, root: root, path: path, name: name)
    }

    // MARK: - DocumentEntry

    @Test func anEntryOfEveryPlaceComesBackThroughABinaryPropertyList() throws {
        let locations = [
            try Self.location(.folder, root: "Papers"), try Self.location(.syncthing, root: "abcd-1234"),
            try Self.location(.cloud, root: "alice@cloud.example.org/Documents"), try Self.location(.home),
            try Self.location(.elsewhere, path: nil), try Self.location(.home, path: "Grüße/ünïcödé plan.odt", name: "ünïcödé plan.odt"),
        ]
        var all: [String: PropertyListValue] = [:]
        for (i, location) in locations.enumerated() {
            let entry = DocumentEntry(location: location, facts: Self.facts)
            let bytes = BinaryPropertyList.encode(entry.propertyList)
            #expect(try DocumentEntry(propertyList: try BinaryPropertyList.decode(bytes)) == entry)
            all["file:///doc/\(i)"] = entry.propertyList
        }
        let entries = try DocumentEntry.entries(try BinaryPropertyList.decode(BinaryPropertyList.encode(.dictionary(all))))
        #expect(entries.count == locations.count)
        #expect(entries["file:///doc/5"]?.location.name == "ünïcödé plan.odt")
    }

    @Test func theBoundsAreInclusive() throws {
        let component = String(repeating: "c", count: 255)
        _ = try Self.location(.folder, root: String(repeating: "r", count: 255))
        let path = Array(repeating: String(repeating: "d", count: 203), count: 5).joined(separator: "/")  // 1019
        _ = try Self.location(.home, path: path + "/abcd", name: "abcd")  // 1024 bytes
        _ = try Self.location(.elsewhere, path: nil, name: component)
        var d = try #require(Self.dictionary(DocumentEntry(location: try Self.location(.home), facts: Self.facts)))
        d["size"] = .integer(1 << 53)
        #expect(try DocumentEntry(propertyList: .dictionary(d)).facts.size == 1 << 53)
        d["size"] = .integer(0)
        #expect(try DocumentEntry(propertyList: .dictionary(d)).facts.size == 0)
    }

    static func dictionary(_ entry: DocumentEntry) -> [String: PropertyListValue]? {
        guard case .dictionary(let d) = entry.propertyList else { return nil }
        return d
    }

    @Test func everyRuleOfALocationIsApplied() {
        let refused: [(DocumentPlace, String?, String?, String)] = [
            (.folder, nil, "a/b", "b"), (.folder, "", "a/b", "b"), (.syncthing, String(repeating: "r", count: 256), "a/b", "b"),
            (.cloud, "alice@host/\u{7F}", "a/b", "b"), (.folder, "tab\there", "a/b", "b"),
            (.home, "root", "a/b", "b"), (.elsewhere, "root", nil, "b"),
            (.home, nil, nil, "b"), (.home, nil, "", "b"), (.home, nil, "/a/b", "b"), (.home, nil, "a//b", "b"),
            (.home, nil, "a/./b", "b"), (.home, nil, "a/../b", "b"), (.home, nil, "../b", "b"), (.home, nil, "a/b/", "b"),
            (.home, nil, "a/b\0c", "b\0c"), (.home, nil, String(repeating: "d/", count: 511) + "abc", "abc"),
            (.home, nil, String(repeating: "c", count: 256), String(repeating: "c", count: 256)),
            (.elsewhere, nil, "a/b", "b"),
            (.home, nil, "a/b", "c"), (.home, nil, "a/b", "a/b"),
            (.elsewhere, nil, nil, ""), (.elsewhere, nil, nil, "."), (.elsewhere, nil, nil, ".."), (.elsewhere, nil, nil, "a/b"),
            (.elsewhere, nil, nil, "a\0b"), (.elsewhere, nil, nil, String(repeating: "n", count: 256)),
        ]
        for (place, root, path, name) in refused {
            #expect(throws: HandoffError.self, "\(place) \(root ?? "-") \(path ?? "-") \(name)") {
                try DocumentLocation(place: place, root: root, path: path, name: name)
            }
        }
    }

    @Test func everyRuleOfAnEntryIsApplied() throws {
        let good = try #require(Self.dictionary(DocumentEntry(location: try Self.location(.home), facts: Self.facts)))
        let changes: [(String, PropertyListValue?)] = [
            ("place", nil), ("place", .string("usb")), ("place", .string("HOME")), ("place", .integer(1)),
            ("name", nil), ("name", .data([1])), ("path", .integer(3)), ("root", .string("x")),
            ("size", nil), ("size", .integer(-1)), ("size", .integer((1 << 53) + 1)), ("size", .real(12)), ("size", .string("12")),
            ("modified", nil), ("modified", .real(700_000_000)), ("modified", .date(.infinity)), ("modified", .date(.nan)),
            ("modified", .date(-.infinity)),
            ("sha256", nil), ("sha256", .data(Array(Self.hash.dropLast()))), ("sha256", .data(Self.hash + [0])),
            ("sha256", .string("00")), ("sha256", .data([])),
        ]
        for (key, value) in changes {
            var d = good
            d[key] = value
            #expect(throws: HandoffError.self, "\(key) = \(String(describing: value))") {
                try DocumentEntry(propertyList: .dictionary(d))
            }
        }
        for value: PropertyListValue in [.array([.dictionary(good)]), .string("home"), .null, .data([])] {
            #expect(throws: HandoffError.self) { try DocumentEntry(propertyList: value) }
            #expect(throws: HandoffError.self) { try DocumentEntry.entries(value) }
        }
        // Unknown keys are a later revision's: read past.
        var later = good
        later["thumbnail"] = .data([1, 2, 3])
        #expect(try DocumentEntry(propertyList: .dictionary(later)).location.name == "plan.odt")
    }

    @Test func atMostEightDocumentsAndAnErrorNamesTheDocument() throws {
        let entry = DocumentEntry(location: try Self.location(.home), facts: Self.facts).propertyList
        let eight = Dictionary(uniqueKeysWithValues: (0..<8).map { ("file:///d/\($0)", entry) })
        #expect(try DocumentEntry.entries(.dictionary(eight)).count == 8)
        var nine = eight
        nine["file:///d/8"] = entry
        #expect(throws: HandoffError.self) { try DocumentEntry.entries(.dictionary(nine)) }
        var bad = eight
        bad["file:///d/bad"] = .dictionary([:])
        do {
            _ = try DocumentEntry.entries(.dictionary(["file:///d/bad": .dictionary([:])]))
            Issue.record("an empty entry was read")
        } catch {
            #expect(error.code == .malformedData)
            #expect(error.message.contains("file:///d/bad"))
        }
    }

    // MARK: - DocumentURLs

    static func url(_ text: String) -> UserInfoValue { .url(URLReference(string: text)!) }

    static let nested: UserInfo = [
        "doc": url("file:///a/one.txt"),
        "web": url("https://example.com/file:///x"),
        "list": .array([url("file:///a/two.txt"), .string("file:///not/a/url.txt"), .array([url("FILE:///a/three.txt")])]),
        "set": .set([url("file:///a/four.txt"), .integer(1)]),
        "dict": .dictionary(["deeper": .dictionary(["doc": url("file:///a/one.txt"), "five": url("file://host/a/five.txt")])]),
    ]

    @Test func theFileURLsOfAUserInfoAreFoundWhereverTheySit() {
        #expect(DocumentURLs.find(in: Self.nested) == ["file:///a/one.txt", "file:///a/two.txt", "FILE:///a/three.txt",
                                                       "file:///a/four.txt", "file://host/a/five.txt"])
        #expect(DocumentURLs.find(in: ["text": .string("file:///a"), "web": Self.url("https://e.com/")]).isEmpty)
    }

    @Test func everyOccurrenceIsReplacedAndNothingElse() throws {
        let map = ["file:///a/one.txt": URLReference(string: "file:///b/1.txt")!,
                   "FILE:///a/three.txt": URLReference(string: "file:///b/3.txt")!,
                   "file:///a/four.txt": URLReference(string: "file:///b/4.txt")!]
        let replaced = DocumentURLs.replace(in: Self.nested, map)
        #expect(replaced["doc"] == Self.url("file:///b/1.txt"))
        #expect(replaced["web"] == Self.url("https://example.com/file:///x"))
        #expect(replaced["list"] == .array([Self.url("file:///a/two.txt"), .string("file:///not/a/url.txt"), .array([Self.url("file:///b/3.txt")])]))
        #expect(replaced["set"] == .set([Self.url("file:///b/4.txt"), .integer(1)]))
        #expect(replaced["dict"] == .dictionary(["deeper": .dictionary(["doc": Self.url("file:///b/1.txt"), "five": Self.url("file://host/a/five.txt")])]))
        #expect(DocumentURLs.find(in: replaced) == ["file:///b/1.txt", "file:///a/two.txt", "file:///b/3.txt", "file:///b/4.txt", "file://host/a/five.txt"])
    }

    // MARK: - The quick scans

    static func utf16BE(_ text: String) -> [UInt8] { text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }

    @Test func mayHoldFileURLFindsTheWordInAnyCaseAsciiOrUTF16() {
        for word in ["file:", "FILE:", "File:", "fIlE:"] {
            #expect(DocumentSender.mayHoldFileURL(Array(word.utf8)))
            #expect(DocumentSender.mayHoldFileURL([0x5F, 0x10] + Array(word.utf8) + [1, 2]))
            #expect(DocumentSender.mayHoldFileURL(Self.utf16BE(word)))
            #expect(DocumentSender.mayHoldFileURL([0x6F, 0x10] + Self.utf16BE("x" + word + "ü")))
        }
        for bytes in [[], Array("file".utf8), Array("fil:".utf8), Array("files".utf8), Self.utf16BE("file"),
                      Array(Self.utf16BE("file:").dropLast()), Array("f\u{1}i\u{1}l\u{1}e\u{1}:".utf8), Array("https://e.com/".utf8)] {
            #expect(!DocumentSender.mayHoldFileURL(bytes), "\(bytes)")
        }
    }

    @Test func aPayloadWhoseFileURLIsNotAsciiIsDescribed() throws {
        let homes = try DocumentHandoffTests.Homes()
        let path = homes.a + "/Grüße/ünïcödé-plan.txt"
        try homes.write(path, "Grüße")
        let activity = try UserActivity(activityType: "com.example.app.edit")
        let url = try #require(URLReference(string: "file://" + path))
        try activity.setUserInfo(["NSUserActivityDocumentURLKey": .url(url), "title": .string("ünïcödé")])
        let payload = try ActivityCoding.encode(activity)
        #expect(DocumentSender.mayHoldFileURL(payload))
        let home = homes.a
        let sender = DocumentSender { DocumentPlaces(home: home) }
        let described = try sender.describe(payload).get()
        let (_, kept) = try ActivityCoding.decode(described, keeping: [DocumentEntry.payloadKey])
        let entries = try DocumentEntry.entries(try #require(kept[DocumentEntry.payloadKey]))
        #expect(entries[url.absoluteString]?.location == (try DocumentLocation(place: .home, root: nil, path: "Grüße/ünïcödé-plan.txt", name: "ünïcödé-plan.txt")))
        #expect(DocumentReceiver.mayHoldDocuments(described))
    }

    /// End to end: two engines, a file whose name is not ASCII in both
    /// homes; the receiver gets its own.
    @Test func aNonAsciiDocumentIsContinuedToTheSameFile() throws {
        let homes = try DocumentHandoffTests.Homes()
        for home in [homes.a, homes.b] { try homes.write(home + "/Grüße/ünïcödé-plan.txt", "Grüße") }
        let delegate = try DocumentHandoffTests().continueDocument(homes, url: "file://" + homes.a + "/Grüße/ünïcödé-plan.txt")
        let (url, origin) = try DocumentHandoffTests().received(delegate)
        #expect(origin == "same")
        #expect(FileURL.path(of: url) == homes.b + "/Grüße/ünïcödé-plan.txt")
    }

    @Test func mayHoldDocumentsLooksForTheKey() throws {
        #expect(DocumentReceiver.mayHoldDocuments(Array("xxdocumentsxx".utf8)))
        #expect(!DocumentReceiver.mayHoldDocuments(Array("document".utf8)))
        #expect(!DocumentReceiver.mayHoldDocuments(Array("DOCUMENTS".utf8)))
        #expect(DocumentReceiver.mayHoldDocuments([0x69, 0x00] + Self.utf16BE("documents") + [0x00]))
        #expect(DocumentReceiver.mayHoldDocuments(Array("HandoffDocumentOrigins".utf8)))
        #expect(DocumentReceiver.mayHoldDocuments(Self.utf16BE("HandoffDocumentOrigins")))
        #expect(!DocumentReceiver.mayHoldDocuments(Self.utf16BE("HandoffDocumentOrigin")))
        #expect(!DocumentReceiver.mayHoldDocuments([]))
        let activity = try UserActivity(activityType: "com.example.app.edit")
        #expect(!DocumentReceiver.mayHoldDocuments(try ActivityCoding.encode(activity)))
        #expect(DocumentReceiver.mayHoldDocuments(try ActivityCoding.encode(activity, adding: ["documents": .dictionary([:])])))
    }

    // MARK: - The frames

    @Test func documentOpenAndAcceptedComeBackAtRevision4Only() throws {
        let id = ActivityID()
        for message: ExchangeMessage in [.documentOpen(id, sha256: Self.hash), .documentAccepted(size: 0),
                                         .documentAccepted(size: 38_000), .documentAccepted(size: .max)] {
            #expect(try ExchangeMessage(message.frame, revision: 4) == message)
            #expect(message.revision == 4)
            for old in 1...3 {
                #expect(throws: HandoffError.self) { try ExchangeMessage(message.frame, revision: old) }
            }
        }
        #expect(ExchangeMessage.documentOpen(id, sha256: Self.hash).frame.payload == id.bytes + Self.hash)
        #expect(ExchangeMessage.documentOpen(id, sha256: Self.hash).frame.type == 9)
        #expect(ExchangeMessage.documentAccepted(size: 0x0102030405060708).frame == Frame(type: 10, payload: [1, 2, 3, 4, 5, 6, 7, 8]))
        #expect(ExchangeMessage.fetch(id).revision == 1)
    }

    @Test func documentFramesOfTheWrongLengthAreRefused() {
        for (type, count) in [(9, 0), (9, 16), (9, 47), (9, 49), (10, 0), (10, 7), (10, 9)] {
            #expect(throws: HandoffError.self, "\(type) \(count)") {
                try ExchangeMessage(Frame(type: UInt8(type), payload: Array(repeating: 7, count: count)), revision: 4)
            }
        }
        #expect(throws: HandoffError.self) { try ExchangeMessage(Frame(type: 11, payload: []), revision: 4) }
    }
}
