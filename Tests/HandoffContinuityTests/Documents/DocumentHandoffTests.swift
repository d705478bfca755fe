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

/// Two devices with a home each, continuing an activity whose userInfo
/// names a file (PROTOCOL.md §12): the app on the receiver gets the URL of
/// the document on its own device, never the sender's.
@Suite(.serialized) struct DocumentHandoffTests {
    static let key = "NSUserActivityDocumentURLKey"

    /// A scratch directory with two homes and a place outside both.
    final class Homes {
        let root: String
        var a: String { root + "/a" }
        var b: String { root + "/b" }
        var outside: String { root + "/outside" }

        init() throws {
            // Not under /tmp, whose files are never described.
            let parent = RepositoryFiles.documentsScratch
            DocumentTestFolders.makeFolders(parent)
            var template = Array((parent + "/homes-XXXXXX").utf8CString)
            guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp") }
            root = String(cString: made)
            for dir in [a, b, outside] { mkdir(dir, 0o700) }
        }

        deinit { _ = system("rm -rf '\(root)'") }

        func write(_ path: String, _ text: String) throws {
            let dir = String(path[..<path.lastIndex(of: "/")!])
            _ = system("mkdir -p '\(dir)'")
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw TestFailure("cannot write \(path)") }
            defer { close(fd) }
            _ = Array(text.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        }

        func read(_ path: String) -> String? {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var out: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                out += buffer[0..<n]
            }
            return String(decoding: out, as: UTF8.self)
        }

        func files(_ dir: String) -> [String] {
            guard let d = opendir(dir) else { return [] }
            defer { closedir(d) }
            var names: [String] = []
            while let e = readdir(d) {
                let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name != "." && name != ".." { names.append(name) }
            }
            return names.sorted()
        }
    }

    /// Continues an activity naming `url` from a device with home A to
    /// one with home B; the receiver's delegate after the outcome.
    func continueDocument(_ homes: Homes, url: String, receiverSettings: DocumentSettings = DocumentSettings(),
                          extra: UserInfo = [:]) throws -> EngineDelegate {
        let receiverDelegate = EngineDelegate()
        let receiverEngine = try loopbackEngine(name: "B", documentEnvironment: ["HOME": homes.b])
        var settings = receiverEngine.settings
        settings.documents = receiverSettings
        receiverEngine.apply(settings)
        let receiver = try Application(manifest: try manifest(), delegate: receiverDelegate, continuity: receiverEngine)
        let sender = try Application(manifest: try manifest(), delegate: EngineDelegate(),
                                     continuity: try loopbackEngine(peers: [receiverEngine.beaconPort], name: "Desk",
                                                                    documentEnvironment: ["HOME": homes.a]))
        let activity = try UserActivity(activityType: "com.example.app.edit")
        var info = extra
        info[Self.key] = .url(try #require(URLReference(string: url)))
        try activity.setUserInfo(info)
        try sender.becomeCurrent(activity)
        #expect(try pump([sender, receiver]) { receiverDelegate.events.contains("available") })
        try receiver.continueActivity(id: try #require(receiverDelegate.available.first).activityID)
        #expect(try pump([sender, receiver], seconds: 20) {
            receiverDelegate.events.contains("continue") || receiverDelegate.events.contains { $0.hasPrefix("didFail") }
        })
        return receiverDelegate
    }

    func received(_ delegate: EngineDelegate) throws -> (url: String, origin: String) {
        let info = try #require(delegate.restoredInfo)
        guard case .url(let url)? = info[Self.key] else { throw TestFailure("no document URL in \(info)") }
        guard case .dictionary(let origins)? = info["HandoffDocumentOrigins"],
              case .string(let origin)? = origins[url.absoluteString] else { throw TestFailure("no origin for \(url) in \(info)") }
        #expect(origins.count == 1)
        return (url.absoluteString, origin)
    }

    @Test func theSameFileInTheOtherHomeIsOpenedThere() throws {
        let homes = try Homes()
        try homes.write(homes.a + "/notes/plan one.txt", "the plan")
        try homes.write(homes.b + "/notes/plan one.txt", "the plan")
        let delegate = try continueDocument(homes, url: FileURL.url(forPath: homes.a + "/notes/plan one.txt"),
                                            extra: ["line": .integer(12)])
        let (url, origin) = try received(delegate)
        #expect(url == FileURL.url(forPath: homes.b + "/notes/plan one.txt"))
        #expect(origin == "same")
        #expect(delegate.restoredInfo?["line"] == .integer(12))
        #expect(homes.files(homes.b + "/notes") == ["plan one.txt"])
    }

    @Test func aMissingFileIsBroughtIntoDownloads() throws {
        let homes = try Homes()
        let content = String(repeating: "0123456789abcdef", count: 5000)  // several DATA frames
        try homes.write(homes.a + "/notes/plan.txt", content)
        let delegate = try continueDocument(homes, url: FileURL.url(forPath: homes.a + "/notes/plan.txt"))
        let (url, origin) = try received(delegate)
        let path = homes.b + "/Downloads/Handoff/plan (from Desk).txt"
        #expect(url == FileURL.url(forPath: path))
        #expect(origin == "brought")
        #expect(homes.read(path) == content)
        #expect(homes.files(homes.b + "/Downloads/Handoff") == ["plan (from Desk).txt"])
    }

    @Test func aDifferentFileIsNeverOverwrittenTheCopyGoesBeside() throws {
        let homes = try Homes()
        try homes.write(homes.a + "/notes/plan.txt", "version two")
        try homes.write(homes.b + "/notes/plan.txt", "version one")
        try homes.write(homes.b + "/notes/plan (from Desk).txt", "an older copy")
        let delegate = try continueDocument(homes, url: FileURL.url(forPath: homes.a + "/notes/plan.txt"))
        let (url, origin) = try received(delegate)
        #expect(url == FileURL.url(forPath: homes.b + "/notes/plan (from Desk) 2.txt"))
        #expect(origin == "brought")
        #expect(homes.read(homes.b + "/notes/plan.txt") == "version one")
        #expect(homes.read(homes.b + "/notes/plan (from Desk).txt") == "an older copy")
        #expect(homes.read(homes.b + "/notes/plan (from Desk) 2.txt") == "version two")
        #expect(homes.files(homes.b + "/notes").count == 3)
    }

    @Test func aFileOutsideHomeComesAlongWithoutItsPath() throws {
        let homes = try Homes()
        try homes.write(homes.outside + "/media/scan.pdf", "%PDF-1.7")
        let delegate = try continueDocument(homes, url: FileURL.url(forPath: homes.outside + "/media/scan.pdf"))
        let (url, origin) = try received(delegate)
        #expect(url == FileURL.url(forPath: homes.b + "/Downloads/Handoff/scan (from Desk).pdf"))
        #expect(origin == "brought")
        #expect(!url.contains(homes.outside))
    }

    @Test func aDocumentOverTheLimitIsRefusedSayingItsSize() throws {
        let homes = try Homes()
        try homes.write(homes.a + "/big.bin", String(repeating: "x", count: 300_000))
        var settings = DocumentSettings()
        settings.maxSize = 100_000
        let delegate = try continueDocument(homes, url: FileURL.url(forPath: homes.a + "/big.bin"), receiverSettings: settings)
        #expect(delegate.events.last == "didFail:4608")
        let message = try #require(delegate.lastError?.message)
        #expect(message.contains("big.bin") && message.contains("0.3 MiB") && message.contains("0.1 MiB"))
        #expect(homes.files(homes.b).isEmpty)
    }

    @Test func aFileThatCannotBeDescribedFailsTheFetch() throws {
        let homes = try Homes()
        let delegate = try continueDocument(homes, url: FileURL.url(forPath: homes.a + "/gone.txt"))
        #expect(delegate.events.last == "didFail:4608")
        #expect(delegate.lastError?.message.contains("gone.txt") == true)
        // The refusal names the document, never where it is on the sender.
        #expect(delegate.lastError?.message.contains(homes.a) == false)
    }

    @Test func aRefusalNamesTheDocumentNotItsPath() throws {
        let homes = try Homes()
        try homes.write(homes.a + "/Private/diary.txt", "dear diary")
        let receiverDelegate = EngineDelegate()
        let receiverEngine = try loopbackEngine(name: "B", documentEnvironment: ["HOME": homes.b])
        let receiver = try Application(manifest: try manifest(), delegate: receiverDelegate, continuity: receiverEngine)
        let senderEngine = try loopbackEngine(peers: [receiverEngine.beaconPort], name: "Desk",
                                              documentEnvironment: ["HOME": homes.a])
        var settings = senderEngine.settings
        settings.documents.exclude = [homes.a + "/Private"]
        senderEngine.apply(settings)
        let sender = try Application(manifest: try manifest(), delegate: EngineDelegate(), continuity: senderEngine)
        let activity = try UserActivity(activityType: "com.example.app.edit")
        try activity.setUserInfo([Self.key: .url(try #require(URLReference(string: FileURL.url(forPath: homes.a + "/Private/diary.txt"))))])
        try sender.becomeCurrent(activity)
        #expect(try pump([sender, receiver]) { receiverDelegate.events.contains("available") })
        try receiver.continueActivity(id: try #require(receiverDelegate.available.first).activityID)
        #expect(try pump([sender, receiver], seconds: 20) { receiverDelegate.events.contains { $0.hasPrefix("didFail") } })
        let message = try #require(receiverDelegate.lastError?.message)
        #expect(message.contains("diary.txt") && !message.contains(homes.a + "/Private/diary.txt"), "\(message)")
    }
}
