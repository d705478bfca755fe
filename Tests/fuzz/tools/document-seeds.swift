// SPDX-License-Identifier: MIT OR Apache-2.0
// Seeds and hostile inputs for the documents decoders (PROTOCOL.md §12):
// `documents` values alone (document-entries) and payloads that carry
// them (document-payload). The document-payload target's scratch home
// holds `notes/plan.txt` with the bytes "plan": the seed that describes
// it resolves to the same file.
import HandoffModel
@testable import HandoffContinuity

/// SHA-256 of "plan", the document-payload target's one file.
let planSHA256 = hex("64879f7d6b960a01909762d911a32d4582c20010c5641ee90278b644a9e3b525")

func documentEntry(_ place: String = "home", root: String? = nil, path: String? = "notes/plan.txt",
                   name: String = "plan.txt", size: Int64 = 4, sha256: [UInt8] = planSHA256) -> PropertyListValue {
    var d: [String: PropertyListValue] = [
        "place": .string(place), "name": .string(name), "size": .integer(size),
        "modified": .date(700_000_000.5), "sha256": .data(sha256),
    ]
    d["root"] = root.map(PropertyListValue.string)
    d["path"] = path.map(PropertyListValue.string)
    return .dictionary(d)
}

/// A payload whose userInfo holds `urls` and whose `documents` is `documents`.
func documentPayload(_ urls: [String], _ documents: PropertyListValue?, _ n: UInt8) throws -> [UInt8] {
    let a = activity("com.example.docs.edit", n)
    var info: UserInfo = ["line": .integer(12)]
    for (i, url) in urls.enumerated() { info[i == 0 ? "NSUserActivityDocumentURLKey" : "more-\(i)"] = .url(URLReference(string: url)!) }
    try a.setUserInfo(info)
    return try ActivityCoding.encode(a, adding: documents.map { ["documents": $0] } ?? [:])
}

let documentURL = "file:///home/alice/notes/plan.txt"

func writeDocumentSeeds(_ w: Writer) throws {
    let places: [(String, PropertyListValue)] = [
        ("home", documentEntry()), ("folder", documentEntry("folder", root: "Papers")),
        ("syncthing", documentEntry("syncthing", root: "abcd-1234")),
        ("cloud", documentEntry("cloud", root: "alice@cloud.example.org/Documents")),
        ("elsewhere", documentEntry("elsewhere", path: nil)),
        ("unicode", documentEntry(path: "Grüße/ünïcödé plan.txt", name: "ünïcödé plan.txt")),
    ]
    for (name, entry) in places { w("document-entries", name, BinaryPropertyList.encode(.dictionary([documentURL: entry]))) }
    w("document-entries", "every-place", BinaryPropertyList.encode(.dictionary(Dictionary(uniqueKeysWithValues:
        places.map { ("file:///d/\($0.0)", $0.1) }))))
    w("document-entries", "eight", BinaryPropertyList.encode(.dictionary(Dictionary(uniqueKeysWithValues:
        (1...8).map { ("file:///d/\($0).txt", documentEntry(path: "d/\($0).txt", name: "\($0).txt")) }))))

    w("document-payload", "same", try documentPayload([documentURL], .dictionary([documentURL: documentEntry()]), 1))
    w("document-payload", "missing", try documentPayload([documentURL], .dictionary([documentURL: documentEntry(path: "notes/other.txt", name: "other.txt")]), 2))
    w("document-payload", "elsewhere", try documentPayload([documentURL], .dictionary([documentURL: documentEntry("elsewhere", path: nil)]), 3))
    w("document-payload", "syncthing", try documentPayload([documentURL], .dictionary([documentURL: documentEntry("syncthing", root: "abcd-1234")]), 4))
    w("document-payload", "no-documents", try documentPayload([documentURL], nil, 5))
    w("document-payload", "two", try documentPayload([documentURL, "file:///home/alice/notes/plan%20two.txt"],
        .dictionary([documentURL: documentEntry(), "file:///home/alice/notes/plan%20two.txt": documentEntry(path: "notes/plan two.txt", name: "plan two.txt")]), 6))

    let id = ActivityID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    for (name, message) in [("document-open", ExchangeMessage.documentOpen(id, sha256: planSHA256)),
                            ("document-accepted", .documentAccepted(size: 38_000))] {
        w("exchange-message", name, [message.frame.type] + message.frame.payload)
    }
}

/// Descriptions a lying peer sends: every one is refused.
let documentLies: [(String, PropertyListValue)] = [
    ("dot-dot", documentEntry(path: "notes/../../../etc/passwd", name: "passwd")),
    ("absolute", documentEntry(path: "/etc/passwd", name: "passwd")),
    ("empty-component", documentEntry(path: "notes//plan.txt")),
    ("dot-component", documentEntry(path: "./notes/plan.txt")),
    ("name-not-last", documentEntry(name: "evil.txt")),
    ("name-climbs", documentEntry("elsewhere", path: nil, name: "../plan.txt")),
    ("unknown-place", documentEntry("usb")),
    ("root-for-home", documentEntry(root: "/etc")),
    ("no-root", documentEntry("syncthing")),
    ("path-for-elsewhere", documentEntry("elsewhere")),
    ("negative-size", documentEntry(size: -1)),
    ("size-over", documentEntry(size: (1 << 53) + 1)),
    ("short-hash", documentEntry(sha256: Array(planSHA256.dropLast()))),
    ("not-a-dictionary", .array([.string("home")])),
]

func writeDocumentRegressions(_ w: Writer) throws {
    for (name, lie) in documentLies {
        w("document-entries", name, BinaryPropertyList.encode(.dictionary([documentURL: lie])))
        w("document-payload", name, try documentPayload([documentURL], .dictionary([documentURL: lie]), 7))
    }
    let nine = Dictionary(uniqueKeysWithValues: (1...9).map { ("file:///d/\($0).txt", documentEntry(path: "d/\($0).txt", name: "\($0).txt")) })
    w("document-entries", "nine", BinaryPropertyList.encode(.dictionary(nine)))
    w("document-entries", "not-a-dictionary-at-all", BinaryPropertyList.encode(.array([documentEntry()])))
    w("document-payload", "nine", try documentPayload(nine.keys.sorted(), .dictionary(nine), 8))
    w("document-payload", "entry-without-url", try documentPayload([documentURL],
        .dictionary([documentURL: documentEntry(), "file:///etc/passwd": documentEntry(path: "notes/passwd", name: "passwd")]), 9))
    w("document-payload", "url-without-entry", try documentPayload([documentURL, "file:///home/alice/.ssh/id_ed25519"],
        .dictionary([documentURL: documentEntry()]), 10))
    w("document-payload", "url-in-other-case", try documentPayload([documentURL],
        .dictionary(["FILE:///home/alice/notes/plan.txt": documentEntry()]), 11))
    // Through the home's link out of it: refused as absent (and no sender).
    w("document-payload", "through-a-link", try documentPayload([documentURL],
        .dictionary([documentURL: documentEntry(path: "out/hostname", name: "hostname")]), 12))

    w("exchange-message", "document-open-47", [9] + Array(repeating: 0xAB, count: 47))
    w("exchange-message", "document-open-49", [9] + Array(repeating: 0xAB, count: 49))
    w("exchange-message", "document-accepted-7", [10] + Array(repeating: 1, count: 7))
    w("exchange-message", "document-accepted-9", [10] + Array(repeating: 1, count: 9))
}
