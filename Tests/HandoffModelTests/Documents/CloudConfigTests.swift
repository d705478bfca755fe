// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffTestSupport
import Testing
@testable import HandoffModel

/// nextcloud.cfg / owncloud.cfg as this device's cloud folders
/// (docs/documents.md §2).
@Suite struct CloudConfigTests {
    /// As the Nextcloud desktop client writes it (keys in Qt's order, not
    /// the person's; CRLF as on some systems; a second account).
    static let nextcloud = """
        [General]\r
        clientVersion=3.7.3\r
        \r
        [Accounts]\r
        0\\Folders\\1\\ignoreHiddenFiles=false\r
        0\\Folders\\1\\journalPath=.sync_0e03fe2b262e.db\r
        0\\Folders\\1\\localPath=/home/alice/Nextcloud/\r
        0\\Folders\\1\\paused=false\r
        0\\Folders\\1\\targetPath=/\r
        0\\Folders\\2\\localPath="/home/alice/Work, shared/"\r
        0\\Folders\\2\\targetPath=/Projects/Work\r
        0\\FoldersWithPlaceholders\\3\\localPath=/home/alice/Photos\r
        0\\FoldersWithPlaceholders\\3\\targetPath=/Photos/\r
        0\\authType=webflow\r
        0\\dav_user=alice\r
        0\\url=https://Cloud.Example.COM\r
        0\\webflow_user=Alice\r
        1\\Folders\\1\\localPath=/home/alice/Club\r
        1\\Folders\\1\\targetPath=/Club\r
        1\\url=https://club.example.org:8443/nextcloud\r
        1\\webflow_user=alice@mail.example\r
        version=2\r
        """

    @Test func accountsAndFolders() throws {
        let folders = try CloudConfig.folders(Array(Self.nextcloud.utf8))
        #expect(folders == [
            CloudFolder(account: "alice@cloud.example.com", remote: "/", path: "/home/alice/Nextcloud"),
            CloudFolder(account: "alice@cloud.example.com", remote: "/Projects/Work", path: "/home/alice/Work, shared"),
            CloudFolder(account: "alice@cloud.example.com", remote: "/Photos", path: "/home/alice/Photos"),
            CloudFolder(account: "alice@mail.example@club.example.org:8443", remote: "/Club", path: "/home/alice/Club"),
        ])
        #expect(folders.map(\.root) == ["alice@cloud.example.com", "alice@cloud.example.com/Projects/Work",
                                         "alice@cloud.example.com/Photos", "alice@mail.example@club.example.org:8443/Club"])
    }

    /// ownCloud's: `user` when there is no `dav_user`; escapes as Qt writes them.
    @Test func ownCloudAndQtEscapes() throws {
        let text = """
            [Accounts]
            version=2
            0\\url=https://demo.owncloud.com:443/
            0\\user=admin
            0\\Folders\\1\\localPath=/home/a/\\x4f\\x77nCloud
            0\\Folders\\1\\targetPath=/Shared\\\\Docs
            0\\Folders\\2\\localPath=C:/Users/a/ownCloud
            0\\Folders\\2\\targetPath=/
            0\\Folders\\3\\localPath=/home/a/list
            0\\Folders\\3\\targetPath=/a,/b
            0\\Folders\\4\\localPath=/home/a/up
            0\\Folders\\4\\targetPath=/x/../y
            """
        let folders = try CloudConfig.folders(Array(text.utf8))
        #expect(folders == [CloudFolder(account: "admin@demo.owncloud.com", remote: "/Shared\\Docs", path: "/home/a/OwnCloud")])
    }

    @Test func foldersWithoutAnAccountAreLeftOut() throws {
        let text = """
            [Accounts]
            0\\Folders\\1\\localPath=/home/a/NC
            0\\Folders\\1\\targetPath=/
            1\\url=https://x.example
            1\\Folders\\1\\localPath=/home/a/NoUser
            1\\Folders\\1\\targetPath=/
            [Other]
            2\\url=https://y.example
            2\\user=u
            2\\Folders\\1\\localPath=/home/a/OtherGroup
            2\\Folders\\1\\targetPath=/
            """
        #expect(try CloudConfig.folders(Array(text.utf8)).isEmpty)
    }

    @Test func hosts() {
        #expect(CloudConfig.host(ofURL: "https://User@Cloud.Example.com:8443/nextcloud") == "cloud.example.com:8443")
        #expect(CloudConfig.host(ofURL: "https://cloud.example.com:443") == "cloud.example.com")
        #expect(CloudConfig.host(ofURL: "http://[::1]:8080/") == "[::1]:8080")
        #expect(CloudConfig.host(ofURL: "cloud.example.com") == nil)
        #expect(CloudConfig.host(ofURL: "https:///path") == nil)
    }

    @Test func boundsAndEncoding() {
        #expect(throws: HandoffError.self) { _ = try CloudConfig.folders([UInt8](repeating: 0x0A, count: CloudConfig.maxBytes + 1)) }
        #expect(throws: HandoffError.self) { _ = try CloudConfig.folders([UInt8](repeating: 0x0A, count: CloudConfig.maxLines + 1)) }
        #expect(throws: HandoffError.self) { _ = try CloudConfig.folders([0x5B, 0xFF, 0x5D]) }
    }

    @Test(arguments: FuzzCorpus.names("cloud-config"))
    func regressions(_ name: String) throws {
        let bytes = try FuzzCorpus.read("cloud-config", name)
        guard let folders = try? CloudConfig.folders(bytes) else { return }
        #expect(!FuzzCorpus.mustBeRefused(name, in: "cloud-config"), "\(name) was accepted")
        #expect(folders.allSatisfy { $0.path.hasPrefix("/") && $0.remote.hasPrefix("/") })
    }
}

@Suite struct UserDirsTests {
    @Test func downloadFolder() {
        let text = """
            # written by xdg-user-dirs-update
            XDG_DESKTOP_DIR="$HOME/Desktop"
            XDG_DOWNLOAD_DIR="$HOME/Téléchargements/"
            """
        #expect(UserDirs.directory("XDG_DOWNLOAD_DIR", in: Array(text.utf8), home: "/home/a") == "/home/a/Téléchargements")
        #expect(UserDirs.directory("XDG_DOWNLOAD_DIR", in: Array("XDG_DOWNLOAD_DIR=\"/data/dl\"\n".utf8), home: "/h") == "/data/dl")
        // `$HOME/` alone: the folder is not wanted.
        #expect(UserDirs.directory("XDG_DOWNLOAD_DIR", in: Array("XDG_DOWNLOAD_DIR=\"$HOME/\"\n".utf8), home: "/h") == nil)
        #expect(UserDirs.directory("XDG_DOWNLOAD_DIR", in: Array("XDG_DOWNLOAD_DIR=\"$XDG_X/dl\"\n".utf8), home: "/h") == nil)
        #expect(UserDirs.directory("XDG_DOWNLOAD_DIR", in: Array("XDG_DOWNLOAD_DIR=relative\n".utf8), home: "/h") == nil)
    }
}
