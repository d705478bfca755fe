// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffBridges
import HandoffModel
import Testing

/// The documents bridge's pure rules (docs/documents.md §7): what is never
/// offered, the opt-outs in the settings file, KDE's recent documents,
/// which app a bookmark is, the choice, and the userInfo both ways.
struct DocumentRulesTests {
    let rules = DocumentOfferRules(home: "/home/alice", runtimeDirectory: "/run/user/1000",
                                   excluded: ["/home/alice/Private"])

    @Test func neverOfferedPlaces() {
        #expect(rules.refusal(path: "/home/alice/plan.txt", resolved: "/home/alice/plan.txt", isPrivate: false) == nil)
        for path in ["/tmp/a.txt", "/var/tmp/a", "/proc/1/environ", "/sys/x", "/dev/null", "/run/user/1000/doc/a",
                     "/home/alice/Private/diary.odt", "/home/alice/Private", "/srv/a.txt", "/home/alice"] {
            #expect(rules.refusal(path: path, resolved: path, isPrivate: false) != nil, "\(path)")
        }
        // A link in home to /tmp is judged by where it leads, and the other way round.
        #expect(rules.refusal(path: "/home/alice/link", resolved: "/tmp/x", isPrivate: false)?.contains("/tmp") == true)
        #expect(rules.refusal(path: "/tmp/link", resolved: "/home/alice/x", isPrivate: false) != nil)
        #expect(rules.refusal(path: "/home/alice/x", resolved: "/home/alice/x", isPrivate: true)?.contains("private") == true)
        // Whole components: /tmpfiles is not /tmp, /home/alicex not home.
        var elsewhere = rules
        elsewhere.elsewhere = true
        #expect(elsewhere.refusal(path: "/tmpfiles/a", resolved: "/tmpfiles/a", isPrivate: false) == nil)
        #expect(rules.refusal(path: "/home/alicex/a", resolved: "/home/alicex/a", isPrivate: false) != nil)
        #expect(elsewhere.refusal(path: "/tmp/a", resolved: "/tmp/a", isPrivate: false) != nil)
    }

    @Test func localPathsOfHrefs() {
        #expect(DocumentOfferRules.localPath("file:///home/a/notes%20%26%20ideas.txt") == "/home/a/notes & ideas.txt")
        #expect(DocumentOfferRules.localPath("file://localhost/home/a") == "/home/a")
        #expect(DocumentOfferRules.localPath("file://server/home/a") == nil)
        #expect(DocumentOfferRules.localPath("https://example.com/a") == nil)
        #expect(DocumentOfferRules.localPath("file:///a%00b") == nil)
    }

    @Test func kdeRecentDocuments() throws {
        let text = """
            [Desktop Entry]
            Icon=text-plain
            Name=plan.txt
            Type=Link
            URL[$e]=file:$HOME/notes/plan%20b.txt
            X-KDE-LastOpenedWith=kate

            """
        let bookmark = try KDERecentDocument.read(Array(text.utf8), source: "plan.txt.desktop", modified: 100, home: "/home/alice")
        #expect(bookmark.href == "file:///home/alice/notes/plan%20b.txt")
        #expect(bookmark.newestApplication == .init(name: "kate", exec: "kate", modified: 100))
        #expect(throws: HandoffError.self) {
            try KDERecentDocument.read(Array("[Desktop Entry]\nName=x\n".utf8), source: "x", modified: 0, home: "/h")
        }
    }

    @Test func whichAppABookmarkIs() {
        let entries = [
            DocumentAppMatch.Entry(id: "org.xfce.mousepad-settings.desktop", programs: ["mousepad"], takesFiles: false),
            DocumentAppMatch.Entry(id: "org.xfce.mousepad.desktop", programs: ["mousepad"], takesFiles: true),
            DocumentAppMatch.Entry(id: "org.kde.okular.desktop", programs: ["okular"], takesFiles: true),
            DocumentAppMatch.Entry(id: "libreoffice-writer.desktop", programs: ["libreoffice", "soffice"], takesFiles: true),
        ]
        func id(_ name: String, _ exec: String) -> String? {
            DocumentAppMatch.entry(for: .init(name: name, exec: exec, modified: 0), among: entries)?.id
        }
        #expect(id("Mousepad", "'mousepad %u'") == "org.xfce.mousepad.desktop")
        #expect(id("org.kde.okular", "okular %u") == "org.kde.okular.desktop")
        #expect(id("LibreOffice", "'soffice %u'") == "libreoffice-writer.desktop")
        #expect(id("Gedit", "'gedit %u'") == nil)
        #expect(DocumentAppMatch.program(ofExec: "env LANG=C /usr/bin/mousepad %u") == "mousepad")
        #expect(DocumentAppMatch.program(ofExec: "'\"/opt/my app/bin/edit\" %u'") == "edit")
        #expect(DocumentAppMatch.program(ofExec: "%u") == nil)
        #expect(DocumentAppMatch.runs(["mousepad"], exe: "/usr/bin/mousepad", argv0: nil))
        #expect(DocumentAppMatch.runs(["soffice"], exe: "/usr/lib/libreoffice/program/soffice.bin", argv0: nil))
        #expect(DocumentAppMatch.runs(["mousepad"], exe: "/usr/bin/mousepad (deleted)", argv0: nil))
        #expect(!DocumentAppMatch.runs(["mousepad"], exe: "/usr/bin/python3", argv0: "python3"))
        #expect(DocumentAppMatch.Entry(id: "org.xfce.mousepad.desktop", programs: [], takesFiles: true).bundleIdentifier
            == "org.xfce.mousepad")
    }

    @Test func theChoiceIsTheNewestDocumentOfARunningApp() {
        func bookmark(_ path: String, _ app: String, _ when: Double, private p: Bool = false) -> RecentBookmark {
            var b = RecentBookmark(href: "file://" + path)
            b.applications = [.init(name: app, exec: app + " %u", modified: when)]
            b.isPrivate = p
            return b
        }
        let entries = ["a", "b", "c"].map { DocumentAppMatch.Entry(id: "\($0).desktop", programs: [$0], takesFiles: true) }
        let bookmarks = [bookmark("/h/1", "a", 5), bookmark("/h/2", "b", 4, private: true), bookmark("/h/3", "c", 3),
                         bookmark("/h/4", "b", 2), bookmark("/h/5", "c", 1)]
        func choose(running: Set<String>) -> DocumentChoice.Outcome {
            DocumentChoice.choose(bookmarks, entry: { app in entries.first { $0.programs.contains(app.name) } },
                                  isRunning: { running.contains($0.id) },
                                  check: { b, _ in b.isPrivate ? .failure(.init("private")) : .success(String(b.href.dropFirst(7))) })
        }
        guard case .offer(let first, _, let path) = choose(running: ["a.desktop", "b.desktop", "c.desktop"]) else {
            Issue.record("nothing offered"); return
        }
        #expect(first.href == "file:///h/1" && path == "/h/1")
        // b's newest is private: b offers nothing (not its older /h/4); c's newest is /h/3.
        guard case .offer(_, let entry, let third) = choose(running: ["b.desktop", "c.desktop"]) else {
            Issue.record("nothing offered"); return
        }
        #expect(entry.id == "c.desktop" && third == "/h/3")
        #expect(choose(running: ["b.desktop"]) == .nothing("a.desktop is not running"))
        #expect(choose(running: []) == .nothing("a.desktop is not running"))
    }

    @Test func theUserInfoBothWays() throws {
        let info = DocumentActivityInfo(url: "file:///home/alice/plan.txt", cursor: DocumentCursor(line: 3, column: 10),
                                        desktopEntry: "org.xfce.mousepad.desktop", mimeType: "text/plain")
        let userInfo = info.userInfo
        #expect(userInfo["NSUserActivityDocumentURLKey"] == .url(URLReference(string: "file:///home/alice/plan.txt")!))
        #expect(userInfo["line"] == .integer(3) && userInfo["column"] == .integer(10))
        #expect(try DocumentActivityInfo.parse(userInfo).get() == info)
        #expect(try DocumentActivityInfo.parse(["NSUserActivityDocumentURLKey": .string("file:///a")]).get().url == "file:///a")
        for bad: UserInfo in [[:], ["NSUserActivityDocumentURLKey": .string("https://example.com/")],
                              ["NSUserActivityDocumentURLKey": .integer(1)]] {
            #expect(throws: MPRISActivityInfo.ParseError.self) { try DocumentActivityInfo.parse(bad).get() }
        }
        var hostile = userInfo
        hostile["desktop_entry"] = .string("../../bin/sh.desktop")
        hostile["line"] = .integer(-4)
        let parsed = try DocumentActivityInfo.parse(hostile).get()
        #expect(parsed.desktopEntry == nil && parsed.cursor == nil)
        #expect(DocumentActivityInfo.title(path: "/home/a/notes\u{7}.txt") == "notes.txt")
        #expect(DocumentCursor.fromDescription("Cursor: x:1;") == nil)
        #expect(DocumentCursor.fromDescription("Encoding: UTF-8;") == nil)
    }
}
