// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffAgent
import HandoffModel
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct FlatpakAppTests {
    @Test func theApplicationGroupsNameIsTheID() {
        let info = "[Application]\nname=org.gnome.TextEditor\nruntime=runtime/org.gnome.Platform/x86_64/47\n\n[Instance]\nname=org.evil.App\n"
        #expect(FlatpakApp.applicationName(info) == "org.gnome.TextEditor")
        #expect(FlatpakApp.applicationName("[Runtime]\nname=org.gnome.Platform\n") == nil)
        #expect(FlatpakApp.applicationName("[Instance]\nname=org.a.B\n[Application]\nname=org.c.D\n") == "org.c.D")
    }

    @Test("an invalid ID is no ID", arguments: ["", "single", "org..a", "org.1a.b", "org.a/b.c", "org.a b.c", "org.a.b\u{e9}",
                                                String(repeating: "a.", count: 128) + "a"])
    func invalidIDs(_ id: String) {
        #expect(FlatpakApp.applicationName("[Application]\nname=\(id)\n") == nil)
    }

    @Test func validIDs() {
        for id in ["org.example.App", "com.example_co.My-App", "io.github.a_b.c"] { #expect(FlatpakApp.isValidID(id), "\(id)") }
    }

    @Test func aProcessOutsideASandboxHasNoID() {
        // This test process: no /.flatpak-info in its root.
        guard access("/.flatpak-info", F_OK) != 0 else { return }
        guard case .failure(let error) = FlatpakApp.id(ofProcess: getpid()) else {
            Issue.record("an ID for a process outside a sandbox")
            return
        }
        #expect(error.code == .invalidState)
    }

    /// A stand-in for /proc with process `pid`'s root holding the
    /// `/.flatpak-info` `make` makes at the path it is given; `body` gets
    /// the stand-in's path. Everything is removed after.
    static func withProc(_ pid: Int32, _ make: (String) -> Void, _ body: (String) throws -> Void) rethrows {
        let proc = "/tmp/flatpak-app-tests-\(getpid())-\(pid)"
        let root = "\(proc)/\(pid)/root"
        mkdir(proc, 0o700); mkdir("\(proc)/\(pid)", 0o700); mkdir(root, 0o700)
        defer {
            unlink("\(root)/.flatpak-info")
            rmdir(root); rmdir("\(proc)/\(pid)"); rmdir(proc)
        }
        make("\(root)/.flatpak-info")
        try body(proc)
    }

    @Test func theInfoIsReadThroughTheProcesssRoot() throws {
        try Self.withProc(42, { path in
            let text = "[Application]\nname=org.example.Portal\n"
            let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            #expect(write(fd, text, text.utf8.count) == text.utf8.count)
            close(fd)
        }) { proc throws in
            let id = try FlatpakApp.id(ofProcess: 42, proc: proc).get()
            #expect(id == "org.example.Portal")
        }
    }

    @Test func aFIFOInThePlaceOfTheInfoIsRefusedWithoutWaitingForAWriter() {
        // The root is the app's: a FIFO there would block open(2) for ever.
        Self.withProc(43, { path in #expect(mkfifo(path, 0o600) == 0) }) { proc in
            guard case .failure(let error) = FlatpakApp.id(ofProcess: 43, proc: proc) else {
                Issue.record("an ID read from a FIFO")
                return
            }
            #expect(error.code == .invalidState)
        }
    }
}

@Suite struct DeliveredDocumentsTests {
    static func payload(_ userInfo: [String: UserInfoValue]) throws -> [UInt8] {
        let activity = try UserActivity(activityType: "com.example.edit")
        try activity.setUserInfo(userInfo)
        return try ActivityCoding.encode(activity)
    }

    @Test func onlyTheURLsTheEngineWroteInTheOriginsAreDelivered() throws {
        var documents = DeliveredDocuments()
        let brought = "file:///home/ada/Downloads/Handoff/plan%20(from%20B).odt"
        try documents.record(payload: Self.payload([
            FileURL.documentURLKey: .url(URLReference(string: brought)!),
            FileURL.documentOriginsKey: .dictionary([brought: .string("brought")]),
            "other": .string("file:///home/ada/secret.txt"),
        ]))
        #expect(documents.delivered(Array("/home/ada/Downloads/Handoff/plan (from B).odt".utf8)))
        #expect(!documents.delivered(Array("/home/ada/secret.txt".utf8)))
        #expect(!documents.delivered(Array("/home/ada/Downloads/Handoff".utf8)))
        // A file URL without origins (a revision-3 payload) is not a delivered document.
        try documents.record(payload: Self.payload([FileURL.documentURLKey: .url(URLReference(string: "file:///home/ada/x.odt")!)]))
        #expect(!documents.delivered(Array("/home/ada/x.odt".utf8)))
        documents.record(payload: [1, 2, 3])
        #expect(documents.paths.count == 1)
    }

    @Test func atMostMaxPathsAreKept() throws {
        var documents = DeliveredDocuments()
        for i in 0...DeliveredDocuments.maxPaths {
            let url = "file:///home/ada/d\(i).txt"
            try documents.record(payload: Self.payload([FileURL.documentOriginsKey: .dictionary([url: .string("same")])]))
        }
        #expect(documents.paths.count == DeliveredDocuments.maxPaths)
        #expect(!documents.delivered(Array("/home/ada/d0.txt".utf8)))
        #expect(documents.delivered(Array("/home/ada/d\(DeliveredDocuments.maxPaths).txt".utf8)))
    }
}
