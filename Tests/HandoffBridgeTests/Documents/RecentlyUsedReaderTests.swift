// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffBridges
import HandoffModel
import HandoffTestSupport
import Testing

/// The `recently-used.xbel` reader against files real apps wrote
/// (Tests/fuzz/corpus/recently-used: Mousepad 0.5.10 under Xvfb; KIO's
/// form as KDE Frameworks writes it) and against hostile ones.
struct RecentlyUsedReaderTests {
    func fixture(_ name: String) throws -> [UInt8] {
        try RepositoryFiles.read("Tests/fuzz/corpus/recently-used/" + name)
    }

    @Test func readsWhatMousepadWrote() throws {
        let bookmarks = try RecentlyUsedReader.read(try fixture("mousepad-0.5.10.xbel"))
        #expect(bookmarks.count == 2)
        // Newest first: notes & ideas.txt was registered last (…24.612717Z).
        let first = bookmarks[0]
        #expect(first.href.hasSuffix("/docs/notes%20&%20ideas.txt"))
        #expect(first.mimeType == "text/plain")
        #expect(first.isPrivate == false)
        #expect(first.applications == [.init(name: "Mousepad", exec: "'mousepad %u'",
                                             modified: XBELDate.parse("2026-11-29T17:43:24.612717Z")!, count: 2)])
        #expect(bookmarks[1].href.hasSuffix("/docs/plan.txt"))
        #expect(bookmarks[1].description == "Language: ; Encoding: UTF-8; Cursor: 2:10;")
        #expect(DocumentCursor.fromDescription(bookmarks[1].description!) == DocumentCursor(line: 3, column: 10))
        #expect(DocumentAppMatch.program(ofExec: first.newestApplication!.exec) == "mousepad")
    }

    @Test func readsKIOsFormAndPrivateBookmarks() throws {
        let bookmarks = try RecentlyUsedReader.read(try fixture("kio-private.xbel"))
        #expect(bookmarks.map(\.href) == ["file:///home/alice/Private/diary.odt", "file:///home/alice/Papers/IEEE%20POSIX.pdf"])
        #expect(bookmarks[0].isPrivate)
        #expect(bookmarks[1].newestApplication?.name == "org.kde.okular")
        #expect(DocumentAppMatch.program(ofExec: bookmarks[1].newestApplication!.exec) == "okular")
        // The application registered later than the bookmark's own dates.
        #expect(bookmarks[1].lastUsed == XBELDate.parse("2024-10-18T15:46:31.000000Z"))
    }

    @Test func keepsOnlyTheNewestAndSkipsOverlongURLs() throws {
        var xml = "<?xml version=\"1.0\"?><xbel version=\"1.0\" xmlns:bookmark=\"\(RecentlyUsedReader.bookmarkNamespace)\">"
        for i in 0..<200 {
            let second = String(i % 60).count == 1 ? "0\(i % 60)" : String(i % 60)
            let minute = String(i / 60).count == 1 ? "0\(i / 60)" : String(i / 60)
            xml += "<bookmark href=\"file:///home/a/\(i).txt\" added=\"2025-01-01T10:\(minute):\(second)Z\"/>"
        }
        xml += "<bookmark href=\"file:///\(String(repeating: "x", count: 5000))\" added=\"2030-01-01T00:00:00Z\"/>"
        xml += "</xbel>"
        let bookmarks = try RecentlyUsedReader.read(Array(xml.utf8))
        #expect(bookmarks.count == RecentlyUsedReader.keep)
        #expect(bookmarks.first?.href == "file:///home/a/199.txt")
        #expect(bookmarks.last?.href == "file:///home/a/136.txt")
    }

    @Test func refusesWhatIsNotAnXBELFile() {
        let cases: [(String, String)] = [
            ("<plist/>", "not <xbel>"),
            ("<xbel><bookmark href='file:///a'>", "not well-formed"),
            ("<!DOCTYPE x [<!ENTITY a 'b'>]><xbel>&a;</xbel>", "entity"),
        ]
        for (text, words) in cases {
            #expect {
                try RecentlyUsedReader.read(Array(text.utf8))
            } throws: { error in
                (error as? HandoffError)?.message.contains(words) == true
            }
        }
        #expect(throws: HandoffError.self) {
            try RecentlyUsedReader.read([UInt8](repeating: 0x20, count: RecentlyUsedReader.maxBytes + 1))
        }
    }

    @Test func datesAsGLibWritesThem() {
        #expect(XBELDate.parse("1970-01-01T00:00:00Z") == 0)
        #expect(XBELDate.parse("2026-11-29T17:43:24.5Z") == 1_795_974_204.5)
        #expect(XBELDate.parse("2026-11-29T18:43:24+01:00") == 1_795_974_204)
        for bad in ["", "2026-13-01T00:00:00Z", "2026-11-29 17:43:24Z", "2026-11-29T17:43:24", "2026-11-29T17:43:24.Z"] {
            #expect(XBELDate.parse(bad) == nil, "\(bad)")
        }
    }
}
