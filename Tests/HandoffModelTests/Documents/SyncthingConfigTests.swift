// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffTestSupport
import Testing
@testable import HandoffModel

/// Syncthing's config.xml as this device's Syncthing folders
/// (docs/documents.md §2).
@Suite struct SyncthingConfigTests {
    /// Written by Debian 12's syncthing 1.19.2 (`syncthing -generate=DIR`
    /// with HOME=/tmp/places-st/h), its GUI API key blanked: the default
    /// folder is read, the template under <defaults> (id "", path "~") is not.
    @Test func realDebianConfig() throws {
        let bytes = try RepositoryFiles.read("Tests/fixtures/documents/syncthing-1.19.2-config.xml")
        let folders = try SyncthingConfig.folders(bytes, home: "/home/alice")
        #expect(folders == [SyncthingFolder(id: "default", path: "/tmp/places-st/h/Sync")])
    }

    @Test func tildeExpandedPausedKeptEncryptedLeftOut() throws {
        let xml = """
            <configuration version="37">
                <folder id="abcd-1234" label="Notes" path="~/Documents/Sync/" type="sendreceive"><paused>true</paused></folder>
                <folder id="home-all" path="~" type="sendonly" paused="true"></folder>
                <folder id="secret" path="/srv/enc" type="receiveencrypted"></folder>
                <folder id="rel" path="relative/path"></folder>
                <folder id="" path="/srv/empty-id"></folder>
                <folder id="abcd-1234" path="/srv/second-of-same-id"></folder>
                <defaults><folder id="tmpl" path="~/tmpl"></folder></defaults>
                <device id="X"><folder id="not-a-folder" path="/x"></folder></device>
            </configuration>
            """
        let folders = try SyncthingConfig.folders(Array(xml.utf8), home: "/home/bob")
        #expect(folders == [
            SyncthingFolder(id: "abcd-1234", path: "/home/bob/Documents/Sync"),
            SyncthingFolder(id: "home-all", path: "/home/bob"),
        ])
        // Without a home, `~` cannot be expanded: those folders go.
        #expect(try SyncthingConfig.folders(Array(xml.utf8), home: nil).isEmpty)
    }

    @Test func malformedFilesAreRefusedWithAReason() {
        let cases: [(String, String)] = [
            ("<configuration><folder id='a' path='/a'>", "not well-formed"),
            ("<plist></plist>", "<configuration>"),
            ("<!DOCTYPE c [<!ENTITY a \"aaaa\">]><configuration/>", "entity"),
            ("", "not well-formed"),
        ]
        for (text, reason) in cases {
            #expect {
                _ = try SyncthingConfig.folders(Array(text.utf8), home: "/h")
            } throws: { error in
                (error as? HandoffError)?.code == .malformedData && (error as? HandoffError)?.message.contains(reason) == true
            }
        }
        #expect(throws: HandoffError.self) {
            _ = try SyncthingConfig.folders([UInt8](repeating: 0x20, count: SyncthingConfig.maxBytes + 1), home: "/h")
        }
    }

    @Test func boundedFolderCount() {
        let many = "<configuration>" + (0...SyncthingConfig.maxFolders).map { "<folder id='f\($0)' path='/f\($0)'/>" }.joined() + "</configuration>"
        #expect(throws: HandoffError.self) { _ = try SyncthingConfig.folders(Array(many.utf8), home: nil) }
        let deep = "<configuration>" + String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100) + "</configuration>"
        #expect(throws: HandoffError.self) { _ = try SyncthingConfig.folders(Array(deep.utf8), home: nil) }
    }

    /// Every input of the regression corpus gives folders or a refusal.
    @Test(arguments: FuzzCorpus.names("syncthing-config"))
    func regressions(_ name: String) throws {
        let bytes = try FuzzCorpus.read("syncthing-config", name)
        guard let folders = try? SyncthingConfig.folders(bytes, home: "/home/a") else { return }
        #expect(!FuzzCorpus.mustBeRefused(name, in: "syncthing-config"), "\(name) was accepted")
        #expect(folders.allSatisfy { $0.path.hasPrefix("/") && DocumentRoots.isWireRoot($0.id) })
    }
}
