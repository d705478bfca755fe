// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffRuntime
import Testing
#if canImport(Glibc)
import Glibc
#endif

// The document helper follows its file as editors move and save it, for
// real (inotify on a real folder), inside dispatch on the host's thread,
// woken by the application fd: each test counts the fd's wake-ups.

@Suite struct DocumentTests {
    static let type = "com.example.shapes.create-shape"

    @Test func opensCurrentWithTheFileURLAndItsName() throws {
        let folder = try Folder()
        try folder.write("plan notes.txt", "one")
        let p = try Pair()
        let doc = try Document(application: p.sender, activityType: Self.type, path: folder.path("plan notes.txt"))
        defer { doc.close() }
        #expect(p.sender.currentActivity === doc.activity)
        #expect(doc.activity.title == "plan notes.txt")
        #expect(url(doc) == "file://" + folder.root.replacingSpaces() + "/plan%20notes.txt")
        #expect(p.senderService.advertised?.title == "plan notes.txt")
        #expect(!isReadable(p.sender.queue.fd), "nothing to do until the file changes")
    }

    @Test func refusesWhatIsNotAFile() throws {
        let folder = try Folder()
        let p = try Pair()
        #expect(throws: HandoffError.self) { try Document(application: p.sender, activityType: Self.type, path: folder.path("absent")) }
        do {
            _ = try Document(application: p.sender, activityType: Self.type, path: folder.root)
            Issue.record("a folder was opened as a document")
        } catch {
            #expect(error.code == .invalidValue)
        }
        do {
            _ = try Document(application: p.sender, activityType: Self.type, path: folder.path("absent"))
        } catch {
            #expect(error.code == .notFound)
        }
    }

    @Test func followsARenameInDispatchOnly() throws {
        let folder = try Folder()
        try folder.write("a.txt", "one")
        let p = try Pair()
        let doc = try Document(application: p.sender, activityType: Self.type, path: folder.path("a.txt"))
        defer { doc.close() }
        try folder.rename("a.txt", "b.txt")
        #expect(wait(p.sender.queue.fd))
        #expect(doc.activity.title == "a.txt", "nothing changes outside dispatch")
        let wakeUps = try dispatchUntil(p.sender) { doc.activity.title == "b.txt" }
        #expect(doc.activity.title == "b.txt")
        #expect(url(doc) == "file://" + folder.root + "/b.txt")
        #expect(p.senderService.advertised?.title == "b.txt")
        #expect(wakeUps <= 2, "\(wakeUps) wake-ups for one rename")
        #expect(try settled(p.sender))
    }

    /// GTK, LibreOffice: write a temporary file, rename it over the path.
    @Test func followsASaveByReplacementThenTheNewFile() throws {
        let folder = try Folder()
        try folder.write("doc.odt", "v1")
        let p = try Pair()
        let doc = try Document(application: p.sender, activityType: Self.type, path: folder.path("doc.odt"))
        defer { doc.close() }
        let before = doc.activity.revision
        try folder.write(".goutputstream-X1", "v2")
        try folder.rename(".goutputstream-X1", "doc.odt")
        var wakeUps = try dispatchUntil(p.sender) { doc.activity.revision != before }
        #expect(doc.activity.title == "doc.odt")
        #expect(url(doc) == "file://" + folder.root + "/doc.odt")
        #expect(try settled(p.sender))
        // The new file is the one followed now.
        try folder.rename("doc.odt", "renamed.odt")
        wakeUps += try dispatchUntil(p.sender) { doc.activity.title == "renamed.odt" }
        #expect(url(doc) == "file://" + folder.root + "/renamed.odt")
        #expect(wakeUps <= 4, "\(wakeUps) wake-ups for a save and a rename")
        #expect(try settled(p.sender))
    }

    /// vim (backupcopy=no): the original moved to a backup, a new file
    /// written at the path, the backup deleted; dispatched between steps.
    @Test func followsABackupAndWriteSave() throws {
        let folder = try Folder()
        try folder.write("notes.md", "v1")
        let p = try Pair()
        let doc = try Document(application: p.sender, activityType: Self.type, path: folder.path("notes.md"))
        defer { doc.close() }
        try folder.rename("notes.md", "notes.md~")
        var wakeUps = try dispatchUntil(p.sender) { doc.activity.title == "notes.md~" }
        try folder.write("notes.md", "v2")
        try folder.remove("notes.md~")
        wakeUps += try dispatchUntil(p.sender) { doc.activity.title == "notes.md" }
        #expect(url(doc) == "file://" + folder.root + "/notes.md")
        #expect(try settled(p.sender))
        // The same save with no dispatch between its steps.
        try folder.rename("notes.md", "notes.md~")
        try folder.write("notes.md", "v3")
        try folder.remove("notes.md~")
        let revision = doc.activity.revision
        wakeUps += try dispatchUntil(p.sender) { doc.activity.revision != revision }
        #expect(doc.activity.title == "notes.md")
        #expect(try settled(p.sender))
        try folder.rename("notes.md", "final.md")
        wakeUps += try dispatchUntil(p.sender) { doc.activity.title == "final.md" }
        #expect(wakeUps <= 8, "\(wakeUps) wake-ups for two saves and a rename")
    }

    @Test func aDeletedFileIsNoLongerOfferedUntilItIsBack() throws {
        let folder = try Folder()
        try folder.write("gone.txt", "v1")
        let p = try Pair()
        let doc = try Document(application: p.sender, activityType: Self.type, path: folder.path("gone.txt"))
        defer { doc.close() }
        try folder.remove("gone.txt")
        let wakeUps = try dispatchUntil(p.sender) { p.sender.currentActivity == nil }
        #expect(p.sender.currentActivity == nil)
        #expect(p.senderService.advertised == nil)
        #expect(wakeUps <= 2)
        #expect(try settled(p.sender))
        try folder.write("gone.txt", "v2")
        doc.saved()
        #expect(p.sender.currentActivity === doc.activity)
        #expect(url(doc) == "file://" + folder.root + "/gone.txt")
    }

    @Test func aWriteInPlaceChangesTheRevisionNotTheURL() throws {
        let folder = try Folder()
        try folder.write("in-place.txt", "v1")
        let p = try Pair()
        let doc = try Document(application: p.sender, activityType: Self.type, path: folder.path("in-place.txt"))
        defer { doc.close() }
        let revision = doc.activity.revision
        try folder.write("in-place.txt", "v2")
        let wakeUps = try dispatchUntil(p.sender) { doc.activity.revision != revision }
        #expect(doc.activity.revision != revision)
        #expect(url(doc) == "file://" + folder.root + "/in-place.txt")
        #expect(wakeUps <= 2)
    }

    @Test func editedAndSavedSetAndClearNeedsSave() throws {
        let folder = try Folder()
        try folder.write("e.txt", "v1")
        let p = try Pair()
        let doc = try Document(application: p.sender, activityType: Self.type, path: folder.path("e.txt"))
        defer { doc.close() }
        doc.edited()
        #expect(doc.activity.needsSave)
        doc.saved()
        #expect(!doc.activity.needsSave)
    }

    @Test func closeInvalidatesAndStopsFollowing() throws {
        let folder = try Folder()
        try folder.write("c.txt", "v1")
        let p = try Pair()
        let doc = try Document(application: p.sender, activityType: Self.type, path: folder.path("c.txt"))
        doc.close()
        #expect(doc.activity.isInvalidated)
        #expect(p.sender.currentActivity == nil)
        try p.sender.dispatch()
        try folder.rename("c.txt", "d.txt")
        #expect(!wait(p.sender.queue.fd, milliseconds: 200))
        #expect(doc.activity.title == "c.txt")
        doc.close()  // harmless
    }

    // MARK: Helpers

    private func url(_ doc: Document) -> String? {
        if case .url(let u)? = doc.activity.userInfo[FileURL.documentURLKey] { return u.absoluteString }
        return nil
    }
}

/// Waits (bounded) for the application fd, dispatching at each wake-up,
/// until `done`; returns the wake-ups counted.
func dispatchUntil(_ app: Application, limit: Int = 10, _ done: () -> Bool) throws -> Int {
    var wakeUps = 0
    while !done() && wakeUps < limit {
        guard wait(app.queue.fd) else { break }
        wakeUps += 1
        try app.dispatch()
    }
    return wakeUps
}

/// True once the fd is quiet: what is left to run runs, and nothing wakes
/// it again (a watch that is not drained would keep it readable).
func settled(_ app: Application) throws -> Bool {
    for _ in 0..<4 {
        guard isReadable(app.queue.fd) else { return true }
        try app.dispatch()
    }
    return !isReadable(app.queue.fd)
}

func wait(_ fd: Int32, milliseconds: Int32 = 5000) -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&p, 1, milliseconds) == 1
}

/// A temporary folder, removed with what is in it.
final class Folder {
    let root: String

    init() throws {
        var template = Array("/tmp/handoff-document-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw HandoffError(.io, "mkdtemp failed") }
        root = String(cString: made)
    }

    deinit {
        if let dir = opendir(root) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name != "." && name != ".." { unlink(path(name)) }
            }
            closedir(dir)
        }
        rmdir(root)
    }

    func path(_ name: String) -> String { root + "/" + name }

    /// Writes (truncating) and closes, as an editor saving in place.
    func write(_ name: String, _ text: String) throws {
        let fd = open(path(name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw HandoffError(.io, "cannot write \(name)") }
        _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
        close(fd)
    }

    func rename(_ from: String, _ to: String) throws {
        guard Glibc.rename(path(from), path(to)) == 0 else { throw HandoffError(.io, "cannot rename \(from)") }
    }

    func remove(_ name: String) throws {
        guard unlink(path(name)) == 0 else { throw HandoffError(.io, "cannot remove \(name)") }
    }
}

private extension String {
    func replacingSpaces() -> String { split(separator: " ", omittingEmptySubsequences: false).joined(separator: "%20") }
}
