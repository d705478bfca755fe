// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import HandoffTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Two devices' places (docs/documents.md §2, §4 step 1): each with its
/// own home, a real Syncthing config.xml (the same folder ID at different
/// paths, one in the folder of Syncthing 1.27 and later, one in the older
/// one), a nextcloud.cfg of the same account with different folders, a
/// declared folder of the same name at different paths. What one side
/// describes, the other finds at its own path.
@Suite struct DocumentPlacesTests {
    struct Device {
        let home: String
        let places: DocumentPlaces
    }

    static func syncthingConfig(_ folders: [(id: String, path: String)]) -> String {
        "<configuration version=\"36\">\n"
            + folders.map { "    <folder id=\"\($0.id)\" label=\"x\" path=\"\($0.path)\" type=\"sendreceive\"><paused>false</paused></folder>\n" }.joined()
            + "    <defaults><folder id=\"\" path=\"~\"></folder></defaults>\n</configuration>\n"
    }

    static func nextcloudConfig(_ folders: [(local: String, target: String)]) -> String {
        var text = "[General]\nclientVersion=3.7.3\n\n[Accounts]\n"
        for (n, folder) in folders.enumerated() {
            text += "0\\Folders\\\(n + 1)\\localPath=\(folder.local)/\n0\\Folders\\\(n + 1)\\targetPath=\(folder.target)\n"
        }
        return text + "0\\dav_user=alice\n0\\url=https://Cloud.Example.com\nversion=2\n"
    }

    /// Device A (the sender) and B (the receiver) under `base`.
    static func devices(_ base: String) throws -> (Device, Device) {
        let a = base + "/a", b = base + "/b"
        try DocumentTestFolders.write(a + "/.local/state/syncthing/config.xml",
                                      syncthingConfig([("abcd-1234", "~/Sync"), ("outer", "~/Outer/"), ("inner", a + "/Outer/inner")]))
        try DocumentTestFolders.write(b + "/.config/syncthing/config.xml",
                                      syncthingConfig([("abcd-1234", "~/Documents/Sync"), ("inner", "~/Inner")]))
        try DocumentTestFolders.write(a + "/.config/Nextcloud/nextcloud.cfg", nextcloudConfig([(a + "/Nextcloud", "/")]))
        try DocumentTestFolders.write(b + "/.config/Nextcloud/nextcloud.cfg",
                                      nextcloudConfig([(b + "/NC", "/"), (b + "/NC-Work", "/Work")]))
        var settingsA = DocumentSettings(), settingsB = DocumentSettings()
        settingsA.folders = ["Papers": a + "/Sync/Papers"]  // inside a Syncthing folder: the declared one wins
        settingsB.folders = ["Papers": b + "/Research/Papers"]
        for folder in [a + "/Sync/Papers", b + "/Research/Papers", b + "/Documents/Sync/notes", b + "/NC-Work/plans", b + "/Inner"] {
            DocumentTestFolders.makeFolders(folder)
        }
        let placesA = DocumentPlaces.load(environment: ["HOME": a], settings: settingsA)
        let placesB = DocumentPlaces.load(environment: ["HOME": b], settings: settingsB)
        #expect(placesA.problems.isEmpty && placesB.problems.isEmpty)
        return (Device(home: a, places: placesA), Device(home: b, places: placesB))
    }

    @Test func eachPlaceIsDescribedOnOneDeviceAndFoundOnTheOther() throws {
        try DocumentTestFolders.with { base in
            let (a, b) = try Self.devices(base)
            // (file on A, place, root, path, where B has it)
            let cases: [(String, DocumentPlace, String?, String, String)] = [
                ("/Sync/Papers/thesis.tex", .folder, "Papers", "thesis.tex", b.home + "/Research/Papers/thesis.tex"),
                ("/Sync/notes/plan.odt", .syncthing, "abcd-1234", "notes/plan.odt", b.home + "/Documents/Sync/notes/plan.odt"),
                ("/Outer/inner/deep.txt", .syncthing, "inner", "deep.txt", b.home + "/Inner/deep.txt"),
                ("/Nextcloud/Work/plans/q3.ods", .cloud, "alice@cloud.example.com", "Work/plans/q3.ods", b.home + "/NC-Work/plans/q3.ods"),
                ("/notes/todo.txt", .home, nil, "notes/todo.txt", b.home + "/notes/todo.txt"),
            ]
            for (file, place, root, path, there) in cases {
                try DocumentTestFolders.write(a.home + file, "content of \(file)")
                try DocumentTestFolders.write(there, "content of \(file)")
                let described = try a.places.describe(path: a.home + file)
                #expect(described.location.place == place, "\(file)")
                #expect(described.location.root == root, "\(file)")
                #expect(described.location.path == path, "\(file)")
                #expect(described.resolvedPath == a.home + file)
                let slot = try #require(b.places.locate(described.location), "\(file)")
                #expect(slot.path == there)
                #expect(slot.facts()?.sameContent(as: described.facts) == true, "\(file)")
                // And back: B describes its copy, A finds its own.
                let back = try b.places.describe(path: there)
                #expect(a.places.locate(back.location)?.path == a.home + file, "\(file)")
            }
        }
    }

    @Test func linksAreFollowedOnTheSendingSide() throws {
        try DocumentTestFolders.with { base in
            let (a, _) = try Self.devices(base)
            try DocumentTestFolders.write(a.home + "/Sync/notes/plan.odt", "plan")
            #expect(symlink(a.home + "/Sync/notes/plan.odt", a.home + "/plan-link.odt") == 0)
            let described = try a.places.describe(path: a.home + "/plan-link.odt")
            #expect(described.location.place == .syncthing && described.location.path == "notes/plan.odt")
            #expect(described.location.name == "plan.odt")
        }
    }

    @Test func outsideEveryPlaceIsElsewhere() throws {
        try DocumentTestFolders.with { base in
            let (a, b) = try Self.devices(base)
            try DocumentTestFolders.write(base + "/srv/report.pdf", "report")
            let described = try a.places.describe(path: base + "/srv/report.pdf")
            #expect(described.location.place == .elsewhere && described.location.root == nil && described.location.path == nil)
            #expect(described.location.name == "report.pdf")
            #expect(b.places.locate(described.location) == nil)
        }
    }

    @Test func unknownRootsAreNotFound() throws {
        try DocumentTestFolders.with { base in
            let (_, b) = try Self.devices(base)
            for (place, root) in [(DocumentPlace.folder, "Nope"), (.syncthing, "zzzz-9999"), (.cloud, "bob@cloud.example.com"),
                                  (.cloud, "alice@other.example.com/Work")] {
                #expect(b.places.locate(try DocumentLocation(place: place, root: root, path: "a/b.txt", name: "b.txt")) == nil)
            }
            // A cloud root deeper than B's folder: the rest of the server path is joined.
            let deep = try DocumentLocation(place: .cloud, root: "alice@cloud.example.com/Work/plans", path: "q3.ods", name: "q3.ods")
            #expect(b.places.locate(deep)?.path == b.home + "/NC-Work/plans/q3.ods")
            let top = try DocumentLocation(place: .cloud, root: "alice@cloud.example.com/Other", path: "x.txt", name: "x.txt")
            #expect(b.places.locate(top)?.path == b.home + "/NC/Other/x.txt")
        }
    }

    /// /tmp, /var/tmp, $XDG_RUNTIME_DIR, /proc, /sys, /dev and the
    /// person's exclusions are never described; nor a FIFO or a folder
    /// (and a FIFO does not block the describing).
    @Test func neverDescribed() throws {
        try DocumentTestFolders.with { base in
            var places = DocumentPlaces.load(environment: ["HOME": base, "XDG_RUNTIME_DIR": base + "/run"])
            places.settings.exclude = [base + "/Private"]
            try DocumentTestFolders.write(base + "/run/bus.txt", "x")
            try DocumentTestFolders.write(base + "/Private/diary.txt", "x")
            try DocumentTestFolders.write(base + "/Public/notes.txt", "x")
            var template = Array("/tmp/handoff-documents-XXXXXX".utf8CString)
            let temporary = String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!)! })
            defer { AccountFixtures.removeTree(temporary) }
            try TestFiles.write(temporary + "/draft.txt", Array("x".utf8))
            #expect(symlink(base + "/Private/diary.txt", base + "/Public/diary-link.txt") == 0)
            #expect(mkfifo(base + "/Public/pipe", 0o600) == 0)
            let refused: [(String, String)] = [
                (temporary + "/draft.txt", "under /tmp"),
                (base + "/run/bus.txt", "under \(base)/run"),
                (base + "/Private/diary.txt", "excluded in the settings"),
                (base + "/Public/diary-link.txt", "excluded in the settings"),
                ("/proc/self/status", "under /proc"),
                ("/dev/null", "under /dev"),
                ("/sys/kernel/uevent_seqnum", "under /sys"),
                (base + "/Public/pipe", "not a regular file"),
                (base + "/Public", "not a regular file"),
                (base + "/Public/missing.txt", "cannot be read"),
            ]
            for (path, reason) in refused {
                do {
                    _ = try places.describe(path: path)
                    Issue.record("\(path) was described")
                } catch let error as HandoffError {
                    #expect(error.code == .invalidArgument, "\(path)")
                    #expect(error.message.contains(reason), "\(path): \(error.message)")
                }
            }
            #expect(try places.describe(path: base + "/Public/notes.txt").location.place == .home)
        }
    }

    @Test func aDamagedConfigLeavesItsPlacesOutAndSaysWhy() throws {
        try DocumentTestFolders.with { base in
            try DocumentTestFolders.write(base + "/.config/syncthing/config.xml", "<configuration><folder id='a' path='/a'>")
            try DocumentTestFolders.write(base + "/.config/Nextcloud/nextcloud.cfg", "[Accounts]\n\u{1}0\\url=\u{FFFD}")
            let places = DocumentPlaces.load(environment: ["HOME": base])
            #expect(places.syncthing.isEmpty)
            #expect(places.problems.count == 1)
            #expect(places.problems.first?.contains("Syncthing's \(base)/.config/syncthing/config.xml is not used") == true)
        }
    }

    /// `$STCONFDIR` first; then the 1.27 folder before the older one.
    @Test func syncthingConfigIsFoundWhereSyncthingLooks() throws {
        try DocumentTestFolders.with { base in
            try DocumentTestFolders.write(base + "/.config/syncthing/config.xml", Self.syncthingConfig([("old", "/o")]))
            #expect(DocumentPlaces.load(environment: ["HOME": base]).syncthing.map(\.id) == ["old"])
            try DocumentTestFolders.write(base + "/state/syncthing/config.xml", Self.syncthingConfig([("new", "/n")]))
            #expect(DocumentPlaces.load(environment: ["HOME": base, "XDG_STATE_HOME": base + "/state"]).syncthing.map(\.id) == ["new"])
            try DocumentTestFolders.write(base + "/st/config.xml", Self.syncthingConfig([("env", "/e")]))
            #expect(DocumentPlaces.load(environment: ["HOME": base, "XDG_STATE_HOME": base + "/state", "STCONFDIR": base + "/st"])
                .syncthing.map(\.id) == ["env"])
        }
    }

    @Test func downloads() throws {
        try DocumentTestFolders.with { base in
            #expect(DocumentPlaces.load(environment: ["HOME": base]).downloads == base + "/Downloads/Handoff")
            try DocumentTestFolders.write(base + "/.config/user-dirs.dirs", "XDG_DOWNLOAD_DIR=\"$HOME/Téléchargements\"\n")
            #expect(DocumentPlaces.load(environment: ["HOME": base]).downloads == base + "/Téléchargements/Handoff")
            #expect(DocumentPlaces.load(environment: [:]).downloads == nil)
        }
    }
}
