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

/// A peer of the account that lies about documents (PROTOCOL.md §12): a
/// fake sender answers FETCH with a crafted payload and DOCUMENT_OPEN with
/// crafted frames; a real receiving engine with a home of its own refuses
/// each lie, and nothing appears outside the destination, no partial file
/// is left.
@Suite(.serialized) struct DocumentHostileTests {
    typealias Homes = DocumentHandoffTests.Homes
    static let key = "NSUserActivityDocumentURLKey"
    static let senderURL = "file:///home/alice/notes/plan.txt"
    static let content = Array("the plan, as the sender has it\n".utf8)

    // MARK: - The fake sender

    /// What the fake does with a DOCUMENT_OPEN, on its connection.
    typealias Serve = @Sendable (ChannelConnection) -> Void

    /// A channel of the right account that answers FETCH with `payload`
    /// and DOCUMENT_OPEN with `serve`, counting the requests.
    final class FakeSender: Sendable {
        let server: ChannelServer
        let opens = Locked<[ExchangeMessage]>([])
        let fetchRevisions = Locked<[Int]>([])

        init(payload: [UInt8], revisions spoken: ClosedRange<Int> = ProtocolRevision.spoken, serve: @escaping Serve) throws {
            let (opens, revisions) = (self.opens, self.fetchRevisions)
            server = try ChannelServer(listeningOn: SocketAddress(host: "127.0.0.1", port: 0),
                                       psk: testAccount.derived.channelPSK, revisions: spoken) { connection in
                for _ in 0..<8 {
                    guard let frame = try? connection.receive(timeout: 10),
                          let message = try? ExchangeMessage(frame, revision: connection.revision) else { return }
                    switch message {
                    case .fetch:
                        revisions.withLock { $0.append(connection.revision) }
                        guard (try? connection.send(ExchangeMessage.payload(payload).frame, timeout: 5)) != nil else { return }
                    case .documentOpen:
                        opens.withLock { $0.append(message) }
                        serve(connection)
                        return
                    default:
                        return
                    }
                }
            }
        }

        var openCount: Int { opens.withLock { $0.count } }
        deinit { server.stop() }
    }

    /// Serves `bytes` honestly: DOCUMENT_ACCEPTED with their size, DATA, END.
    static func honest(_ bytes: [UInt8]) -> Serve {
        { connection in
            try? connection.send(ExchangeMessage.documentAccepted(size: UInt64(bytes.count)).frame, timeout: 5)
            try? connection.send(Frame(type: StreamFrame.data, payload: bytes), timeout: 5)
            try? connection.send(Frame(type: StreamFrame.end, payload: []), timeout: 5)
            _ = try? connection.receive(timeout: 5)  // until the receiver closes
        }
    }

    static let refuseToServe: Serve = { connection in
        Issue.record("the receiver asked for the bytes of a document it should have refused")
        try? connection.send(ExchangeMessage.error(code: 4608, message: "no").frame, timeout: 5)
    }

    // MARK: - Payloads

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        let digest = SHA256Stream()
        bytes.withUnsafeBytes { digest.update($0) }
        return digest.finish()
    }

    /// An entry as a lying peer may write it: any field, any type.
    static func entry(place: String = "home", root: String? = nil, path: String? = "notes/plan.txt",
                      name: String = "plan.txt", size: Int64? = nil, modified: PropertyListValue = .date(700_000_000),
                      sha256: [UInt8]? = nil) -> PropertyListValue {
        var d: [String: PropertyListValue] = [
            "place": .string(place), "name": .string(name), "modified": modified,
            "size": .integer(size ?? Int64(content.count)), "sha256": .data(sha256 ?? Self.sha256(content)),
        ]
        d["root"] = root.map(PropertyListValue.string)
        d["path"] = path.map(PropertyListValue.string)
        return .dictionary(d)
    }

    /// An activity whose userInfo holds `urls` (under the document key and
    /// `extra-N`), encoded with `documents` added as the fake sends it.
    static func payload(_ activity: UserActivity, urls: [String] = [senderURL],
                        documents: PropertyListValue?) throws -> [UInt8] {
        var info: UserInfo = [:]
        for (i, url) in urls.enumerated() {
            info[i == 0 ? key : "extra-\(i)"] = .url(try #require(URLReference(string: url)))
        }
        try activity.setUserInfo(info)
        return try ActivityCoding.encode(activity, adding: documents.map { [DocumentEntry.payloadKey: $0] } ?? [:])
    }

    // MARK: - The receiver

    struct Outcome {
        let delegate: EngineDelegate
        let fake: FakeSender
        var failed: Int32? {
            guard let last = delegate.events.last, last.hasPrefix("didFail:") else { return nil }
            return Int32(last.dropFirst("didFail:".count))
        }
        var message: String { delegate.lastError?.message ?? "" }
    }

    /// A real receiver with home `homes.b` continues the fake's activity.
    static func receive(_ homes: Homes, activity: UserActivity, payload: [UInt8], serve: @escaping Serve,
                        fetchTimeout: Double = 1, deviceName: String = "fake",
                        settings: DocumentSettings = DocumentSettings(),
                        revisions: ClosedRange<Int> = ProtocolRevision.spoken) throws -> Outcome {
        let fake = try FakeSender(payload: payload, revisions: revisions, serve: serve)
        let delegate = EngineDelegate()
        let engine = try loopbackEngine(fetchTimeout: fetchTimeout, name: "B", documentEnvironment: ["HOME": homes.b])
        var applied = engine.settings
        applied.documents = settings
        engine.apply(applied)
        let receiver = try Application(manifest: try manifest(), delegate: delegate, continuity: engine)
        let beacon = Beacon(kind: .advert, timestamp: wallMilliseconds(), sequence: wallMilliseconds(),
                            deviceID: Crypto.randomBytes(16), deviceName: deviceName, role: .full, channelPort: fake.server.port,
                            activity: BeaconActivity(activityID: activity.activityID.bytes, activityType: activity.activityType,
                                                     title: nil, teamIdentifier: "TEAM1", bundleIdentifier: "com.example.app",
                                                     webpageURL: nil, expiration: nil, supportsContinuationStreams: false))
        try sendUDP(try BeaconCodec.seal(beacon, key: testAccount.derived.beaconKey), to: engine.beaconPort)
        #expect(try pump([receiver]) { delegate.events.contains("available") })
        try receiver.continueActivity(id: activity.activityID)
        #expect(try pump([receiver], seconds: 30) {
            delegate.events.contains("continue") || delegate.events.contains { $0.hasPrefix("didFail") }
        })
        #expect(fake.fetchRevisions.withLock { $0 } == [min(revisions.upperBound, ProtocolRevision.current)])
        return Outcome(delegate: delegate, fake: fake)
    }

    /// Every entry below `root` (not following links): relative path →
    /// `dir`, `link → TARGET` or the file's bytes.
    static func tree(_ root: String) -> [String: String] {
        var out: [String: String] = [:]
        var stack = [""]
        while let relative = stack.popLast(), out.count < 10_000 {
            let dir = relative.isEmpty ? root : root + "/" + relative
            guard let d = opendir(dir) else { continue }
            defer { closedir(d) }
            while let e = readdir(d) {
                let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name == "." || name == ".." { continue }
                let path = relative.isEmpty ? name : relative + "/" + name
                var st = stat()
                guard lstat(root + "/" + path, &st) == 0 else { continue }
                switch st.st_mode & S_IFMT {
                case S_IFDIR: out[path] = "dir"; stack.append(path)
                case S_IFLNK:
                    var target = [CChar](repeating: 0, count: 4096)
                    let n = readlink(root + "/" + path, &target, target.count - 1)
                    out[path] = "link → " + String(decoding: target[0..<max(n, 0)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                default: out[path] = readAll(root + "/" + path)
                }
            }
        }
        return out
    }

    static func readAll(_ path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return "unreadable" }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        for _ in 0..<1024 {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// What a refusal must leave: the scratch tree as it was, bar the
    /// destination folders a copy was begun in (empty).
    static func expectUntouched(_ before: [String: String], _ homes: Homes, sourceLocation: SourceLocation = #_sourceLocation) {
        var after = tree(homes.root)
        for folder in ["b/Downloads", "b/Downloads/Handoff"] where before[folder] == nil && after[folder] == "dir" {
            after[folder] = nil
        }
        #expect(after == before, "the receiver left \(after.filter { before[$0.key] != $0.value })", sourceLocation: sourceLocation)
    }

    // MARK: - Descriptions a receiver refuses before asking for anything

    enum Lie: String, CaseIterable, Sendable {
        case dotDot, absolutePath, emptyComponent, dotComponent, trailingSlash, nulInPath, pathOver1024
        case nameNotLastComponent, nameWithSlash, nameDotDot, unknownPlace, rootForHome, noRootForSyncthing
        case controlInRoot, pathForElsewhere, negativeSize, sizeOver2To53, shortHash, hashAsString
        case modifiedNotADate, placeMissing, entryNotADictionary, documentsNotADictionary
        case nineDocuments, entryForAURLNotInUserInfo, fileURLWithoutAnEntry, entryUnderOtherURLText

        /// The userInfo's URLs and the `documents` value the fake sends.
        var documents: (urls: [String], documents: PropertyListValue) {
            let url = DocumentHostileTests.senderURL
            func one(_ entry: PropertyListValue) -> ([String], PropertyListValue) { ([url], .dictionary([url: entry])) }
            let entry = DocumentHostileTests.entry
            switch self {
            case .dotDot: return one(entry("home", nil, "notes/../../outside/plan.txt", "plan.txt", nil, .date(0), nil))
            case .absolutePath: return one(entry("home", nil, "/tmp/plan.txt", "plan.txt", nil, .date(0), nil))
            case .emptyComponent: return one(entry("home", nil, "notes//plan.txt", "plan.txt", nil, .date(0), nil))
            case .dotComponent: return one(entry("home", nil, "./notes/plan.txt", "plan.txt", nil, .date(0), nil))
            case .trailingSlash: return one(entry("home", nil, "notes/plan.txt/", "plan.txt", nil, .date(0), nil))
            case .nulInPath: return one(entry("home", nil, "notes\0/plan.txt", "plan.txt", nil, .date(0), nil))
            case .pathOver1024:
                let long = String(repeating: "d/", count: 512) + "plan.txt"
                return one(entry("home", nil, long, "plan.txt", nil, .date(0), nil))
            case .nameNotLastComponent: return one(entry("home", nil, "notes/plan.txt", "evil.txt", nil, .date(0), nil))
            case .nameWithSlash: return one(entry("elsewhere", nil, nil, "../plan.txt", nil, .date(0), nil))
            case .nameDotDot: return one(entry("elsewhere", nil, nil, "..", nil, .date(0), nil))
            case .unknownPlace: return one(entry("usb-stick", nil, "notes/plan.txt", "plan.txt", nil, .date(0), nil))
            case .rootForHome: return one(entry("home", "/etc", "notes/plan.txt", "plan.txt", nil, .date(0), nil))
            case .noRootForSyncthing: return one(entry("syncthing", nil, "notes/plan.txt", "plan.txt", nil, .date(0), nil))
            case .controlInRoot: return one(entry("syncthing", "ab\ncd", "notes/plan.txt", "plan.txt", nil, .date(0), nil))
            case .pathForElsewhere: return one(entry("elsewhere", nil, "notes/plan.txt", "plan.txt", nil, .date(0), nil))
            case .negativeSize: return one(entry("home", nil, "notes/plan.txt", "plan.txt", -1, .date(0), nil))
            case .sizeOver2To53: return one(entry("home", nil, "notes/plan.txt", "plan.txt", (1 << 53) + 1, .date(0), nil))
            case .shortHash: return one(entry("home", nil, "notes/plan.txt", "plan.txt", nil, .date(0), Array(repeating: 1, count: 31)))
            case .hashAsString:
                guard case .dictionary(var d) = entry("home", nil, "notes/plan.txt", "plan.txt", nil, .date(0), nil) else { fatalError() }
                d["sha256"] = .string(String(repeating: "ab", count: 32))
                return one(.dictionary(d))
            case .modifiedNotADate: return one(entry("home", nil, "notes/plan.txt", "plan.txt", nil, .real(0), nil))
            case .placeMissing:
                guard case .dictionary(var d) = entry("home", nil, "notes/plan.txt", "plan.txt", nil, .date(0), nil) else { fatalError() }
                d["place"] = nil
                return one(.dictionary(d))
            case .entryNotADictionary: return one(.array([.string("home")]))
            case .documentsNotADictionary: return ([url], .array([entry("home", nil, "notes/plan.txt", "plan.txt", nil, .date(0), nil)]))
            case .nineDocuments:
                let urls = (1...9).map { "file:///home/alice/notes/plan\($0).txt" }
                return (urls, .dictionary(Dictionary(uniqueKeysWithValues: urls.enumerated().map { i, u in
                    (u, entry("home", nil, "notes/plan\(i + 1).txt", "plan\(i + 1).txt", nil, .date(0), nil))
                })))
            case .entryForAURLNotInUserInfo:
                return ([url], .dictionary([url: entry("home", nil, "notes/plan.txt", "plan.txt", nil, .date(0), nil),
                                            "file:///etc/passwd": entry("home", nil, "notes/passwd", "passwd", nil, .date(0), nil)]))
            case .fileURLWithoutAnEntry:
                return ([url, "file:///home/alice/.ssh/id_ed25519"],
                        .dictionary([url: entry("home", nil, "notes/plan.txt", "plan.txt", nil, .date(0), nil)]))
            case .entryUnderOtherURLText:
                return ([url], .dictionary(["FILE:///home/alice/notes/plan.txt": entry("home", nil, "notes/plan.txt", "plan.txt", nil, .date(0), nil)]))
            }
        }
    }

    @Test(arguments: Lie.allCases)
    func aLyingDescriptionIsRefusedAsMalformed(_ lie: Lie) throws {
        let homes = try Homes()
        try homes.write(homes.b + "/notes/plan.txt", String(decoding: Self.content, as: UTF8.self))
        try homes.write(homes.outside + "/plan.txt", "outside")
        let before = Self.tree(homes.root)
        let activity = try UserActivity(activityType: "com.example.app.edit")
        let (urls, documents) = lie.documents
        let outcome = try Self.receive(homes, activity: activity,
                                       payload: try Self.payload(activity, urls: urls, documents: documents),
                                       serve: Self.refuseToServe)
        #expect(outcome.failed == 4608, "\(lie): \(outcome.delegate.events)")
        #expect(outcome.message.contains("cannot be read"), "\(lie): \(outcome.message)")
        #expect(outcome.fake.openCount == 0)
        #expect(outcome.delegate.restoredInfo == nil)
        Self.expectUntouched(before, homes)
    }

    // MARK: - Places the receiver does not have, links out of them

    /// Continues an honest description of `content` at `entry`, served
    /// honestly; the URL and origin the app got.
    func bring(_ homes: Homes, _ entry: PropertyListValue, from device: String = "fake") throws -> (url: String, origin: String, opens: Int) {
        let activity = try UserActivity(activityType: "com.example.app.edit")
        let outcome = try Self.receive(homes, activity: activity,
                                       payload: try Self.payload(activity, documents: .dictionary([Self.senderURL: entry])),
                                       serve: Self.honest(Self.content), deviceName: device)
        let info = try #require(outcome.delegate.restoredInfo, "\(outcome.delegate.events) \(outcome.message)")
        guard case .url(let url)? = info[Self.key],
              case .dictionary(let origins)? = info["HandoffDocumentOrigins"],
              case .string(let origin)? = origins[url.absoluteString] else { throw TestFailure("no document in \(info)") }
        #expect(!url.absoluteString.contains("alice"))
        return (url.absoluteString, origin, outcome.fake.openCount)
    }

    @Test func anUnknownSyncthingFolderBringsTheCopyIntoDownloads() throws {
        let homes = try Homes()
        try homes.write(homes.b + "/notes/plan.txt", "the receiver's own plan")
        mkdir(homes.b + "/Downloads", 0o700)
        let before = Self.tree(homes.root)
        let got = try bring(homes, Self.entry(place: "syncthing", root: "zzzz-9999"))
        let copy = homes.b + "/Downloads/Handoff/plan (from fake).txt"
        #expect(got.url == FileURL.url(forPath: copy))
        #expect(got.origin == "brought")
        var expected = before
        expected["b/Downloads/Handoff"] = "dir"
        expected["b/Downloads/Handoff/plan (from fake).txt"] = String(decoding: Self.content, as: UTF8.self)
        #expect(Self.tree(homes.root) == expected)
    }

    /// `~/notes` is a link to a folder outside the home: the described
    /// path leaves the root through it, so the file is absent (never read
    /// there, never written there) and the copy goes to Downloads.
    @Test func aLinkedFolderOutOfTheHomeIsNeitherWrittenNorRead() throws {
        for outsideHasTheFile in [false, true] {
            let homes = try Homes()
            #expect(symlink(homes.outside, homes.b + "/notes") == 0)
            mkdir(homes.b + "/Downloads", 0o700)
            if outsideHasTheFile { try homes.write(homes.outside + "/plan.txt", String(decoding: Self.content, as: UTF8.self)) }
            let before = Self.tree(homes.root)
            let got = try bring(homes, Self.entry())
            #expect(got.url == FileURL.url(forPath: homes.b + "/Downloads/Handoff/plan (from fake).txt"), "\(outsideHasTheFile)")
            #expect(got.origin == "brought")
            #expect(got.opens == 1)
            let after = Self.tree(homes.root)
            #expect(after.filter { $0.key.hasPrefix("outside") } == before.filter { $0.key.hasPrefix("outside") })
            #expect(Set(after.keys).subtracting(before.keys) == ["b/Downloads/Handoff", "b/Downloads/Handoff/plan (from fake).txt"])
        }
    }

    /// `~/notes/plan.txt` is a link out of the home to a file with the
    /// described content: it is not the document here, the copy goes
    /// beside it and the link's target is untouched.
    @Test func aLinkedFileOutOfTheHomeIsNotTheDocument() throws {
        let homes = try Homes()
        try homes.write(homes.outside + "/plan.txt", String(decoding: Self.content, as: UTF8.self))
        _ = system("mkdir -p '\(homes.b)/notes'")
        #expect(symlink(homes.outside + "/plan.txt", homes.b + "/notes/plan.txt") == 0)
        let before = Self.tree(homes.root)
        let got = try bring(homes, Self.entry())
        #expect(got.url == FileURL.url(forPath: homes.b + "/notes/plan (from fake).txt"))
        #expect(got.origin == "brought")
        let after = Self.tree(homes.root)
        #expect(Set(after.keys).subtracting(before.keys) == ["b/notes/plan (from fake).txt"])
        #expect(after.filter { before[$0.key] != nil } == before)
    }

    /// The sender's device name becomes part of the copy's file name: a
    /// `/` in it names no folder (a name of the person's choosing may hold
    /// one; a lying peer's may climb out through a folder that happens to
    /// be there).
    @Test func aDeviceNameWithASlashNamesNoFolder() throws {
        for device in ["Work/Home", "x/../../../../outside/y"] {
            let homes = try Homes()
            _ = system("mkdir -p '\(homes.b)/Downloads/Handoff/plan (from x'")
            let before = Self.tree(homes.root)
            let got = try bring(homes, Self.entry(path: "gone/plan.txt"), from: device)
            let name = "plan (from \(device.split(separator: "/", omittingEmptySubsequences: false).joined(separator: "_"))).txt"
            #expect(got.url == FileURL.url(forPath: homes.b + "/Downloads/Handoff/" + name), "\(device)")
            let after = Self.tree(homes.root)
            #expect(Set(after.keys).subtracting(before.keys) == ["b/Downloads/Handoff/" + name], "\(device)")
        }
    }

    /// A document over the receiver's limit (its setting, applied to the
    /// running engine) is refused from its description: no byte is asked
    /// for, whatever the sender would send.
    @Test func aDocumentOverTheLimitIsNeverAskedFor() throws {
        let homes = try Homes()
        let before = Self.tree(homes.root)
        let activity = try UserActivity(activityType: "com.example.app.edit")
        var settings = DocumentSettings()
        settings.maxSize = 1000
        let outcome = try Self.receive(homes, activity: activity,
                                       payload: try Self.payload(activity, documents: .dictionary([Self.senderURL: Self.entry(size: 100_000)])),
                                       serve: Self.refuseToServe, settings: settings)
        #expect(outcome.failed == 4608)
        #expect(outcome.message.contains("over the") && outcome.message.contains("limit"), "\(outcome.message)")
        #expect(outcome.fake.openCount == 0)
        Self.expectUntouched(before, homes)
    }

    /// `HandoffDocumentOrigins` is the receiver's to write (PROTOCOL.md
    /// §12): a revision-3 sender that writes it itself, in a payload
    /// without `documents` (unresolved, as revision 3 has none), must not
    /// tell the app that a file of the receiver's is the document it
    /// continues. The key is dropped; the rest passes as it always did.
    @Test func aSenderCannotTellTheAppWhereADocumentCameFrom() throws {
        let homes = try Homes()
        let activity = try UserActivity(activityType: "com.example.app.edit")
        let target = FileURL.url(forPath: homes.b + "/.ssh/id_ed25519")
        try activity.setUserInfo([Self.key: .url(try #require(URLReference(string: target))),
                                  "HandoffDocumentOrigins": .dictionary([target: .string("same")])])
        let outcome = try Self.receive(homes, activity: activity, payload: try ActivityCoding.encode(activity),
                                       serve: Self.refuseToServe, revisions: 3...3)
        let info = try #require(outcome.delegate.restoredInfo, "\(outcome.delegate.events)")
        #expect(info["HandoffDocumentOrigins"] == nil)
        #expect(info[Self.key] == .url(try #require(URLReference(string: target))))
    }

    // MARK: - Bytes that lie

    enum Stream: String, CaseIterable, Sendable {
        case acceptedWithAnotherSize, dataBeyondTheSize, endEarly, closedWithoutEnd, otherBytesOfTheRightSize
        case emptyData, endWithPayload, anExchangeFrameMidStream, refusedWithAnError, acceptedTwice

        var serve: Serve {
            let content = DocumentHostileTests.content
            let size = UInt64(content.count)
            func accepted(_ n: UInt64) -> Frame { ExchangeMessage.documentAccepted(size: n).frame }
            func data(_ bytes: [UInt8]) -> Frame { Frame(type: StreamFrame.data, payload: bytes) }
            let end = Frame(type: StreamFrame.end, payload: [])
            let frames: [Frame]
            switch self {
            // The bytes are the right ones: only the announced size lies.
            case .acceptedWithAnotherSize: frames = [accepted(size + 1), data(content), end]
            // Keeps sending past the size, without END.
            case .dataBeyondTheSize: frames = [accepted(size), data(content)] + Array(repeating: data(Array(repeating: 0x41, count: 16_000)), count: 64)
            case .endEarly: frames = [accepted(size), data(Array(content.prefix(5))), end]
            case .closedWithoutEnd: frames = [accepted(size), data(content)]
            case .otherBytesOfTheRightSize: frames = [accepted(size), data(content.map { $0 ^ 1 }), end]
            case .emptyData: frames = [accepted(size), data([]), data(content), end]
            case .endWithPayload: frames = [accepted(size), data(content), Frame(type: StreamFrame.end, payload: [0])]
            case .anExchangeFrameMidStream: frames = [accepted(size), data(Array(content.prefix(5))), ExchangeMessage.payload([1]).frame]
            case .refusedWithAnError: frames = [ExchangeMessage.error(code: 4608, message: "no such document").frame]
            case .acceptedTwice: frames = [accepted(size), accepted(size), data(content), end]
            }
            return { connection in
                for frame in frames { guard (try? connection.send(frame, timeout: 5)) != nil else { return } }
                _ = try? connection.receive(timeout: 5)
            }
        }

        /// Words the receiver's message must hold.
        var says: String {
            switch self {
            case .acceptedWithAnotherSize: "unexpected frame"
            case .dataBeyondTheSize: "more of plan.txt than it described"
            case .endEarly, .otherBytesOfTheRightSize: "is not the document described"
            case .closedWithoutEnd: "did not arrive whole"
            case .emptyData, .endWithPayload, .anExchangeFrameMidStream, .acceptedTwice: "broke off sending"
            case .refusedWithAnError: "no such document"
            }
        }
    }

    @Test(arguments: Stream.allCases)
    func aStreamThatLiesLeavesNothing(_ lie: Stream) throws {
        let homes = try Homes()
        _ = system("mkdir -p '\(homes.b)/notes'")
        let before = Self.tree(homes.root)
        let activity = try UserActivity(activityType: "com.example.app.edit")
        let outcome = try Self.receive(homes, activity: activity,
                                       payload: try Self.payload(activity, documents: .dictionary([Self.senderURL: Self.entry()])),
                                       serve: lie.serve)
        #expect(outcome.failed == 4608, "\(lie): \(outcome.delegate.events) \(outcome.message)")
        #expect(outcome.message.contains(lie.says), "\(lie): \(outcome.message)")
        #expect(outcome.fake.openCount == 1)
        Self.expectUntouched(before, homes)
    }

    /// The sender accepts, then sends nothing: the receiver gives up after
    /// its reply timeout (fetch timeout + handshake timeout + 2 s), 4610.
    @Test func aStreamThatStallsIsBoundedByTheTimeout() throws {
        let homes = try Homes()
        _ = system("mkdir -p '\(homes.b)/notes'")
        let before = Self.tree(homes.root)
        let activity = try UserActivity(activityType: "com.example.app.edit")
        let stall: Serve = { connection in
            try? connection.send(ExchangeMessage.documentAccepted(size: UInt64(DocumentHostileTests.content.count)).frame, timeout: 5)
            try? connection.send(Frame(type: StreamFrame.data, payload: Array(DocumentHostileTests.content.prefix(3))), timeout: 5)
            _ = try? connection.receive(timeout: 20)  // returns when the receiver gives up
        }
        let started = monotonicSeconds()
        let outcome = try Self.receive(homes, activity: activity,
                                       payload: try Self.payload(activity, documents: .dictionary([Self.senderURL: Self.entry()])),
                                       serve: stall, fetchTimeout: 0.2)
        #expect(outcome.failed == 4610, "\(outcome.delegate.events) \(outcome.message)")
        #expect(outcome.message.contains("stopped sending plan.txt (3 of \(Self.content.count) bytes)"), "\(outcome.message)")
        #expect(monotonicSeconds() - started < 25)
        Self.expectUntouched(before, homes)
    }
}
