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

/// A peer of the account that asks a real sender for documents it was not
/// offered, or for one that changed since (PROTOCOL.md §12): the sender
/// serves only what it described, as it was described.
@Suite(.serialized) struct DocumentServingHostileTests {
    typealias Homes = DocumentHandoffTests.Homes

    /// A real sender with home `homes.a` whose current activity names the
    /// file at `path`.
    struct Sender {
        let app: Application
        let engine: ContinuityEngine
        let activity: UserActivity
        var address: SocketAddress { SocketAddress(host: "127.0.0.1", port: engine.channelPort) }

        init(_ homes: Homes, path: String) throws {
            engine = try loopbackEngine(name: "Desk", documentEnvironment: ["HOME": homes.a])
            app = try Application(manifest: try manifest(), delegate: EngineDelegate(), continuity: engine)
            activity = try UserActivity(activityType: "com.example.app.edit")
            try activity.setUserInfo([DocumentHostileTests.key: .url(try #require(URLReference(string: FileURL.url(forPath: path))))])
            try app.becomeCurrent(activity)
        }

        /// `body` on a thread of its own while the app dispatches.
        func whileDispatching<T: Sendable>(_ body: @escaping @Sendable () -> T) throws -> T {
            let result = OneShot<T>()
            #expect(startDetachedThread(named: "test-peer") { result.fulfil(body()) })
            try pump([app], seconds: 30) { result.wait(seconds: 0) != nil }
            return try #require(result.wait(seconds: 0))
        }

        /// A connection of the account (revision 4 unless told), and the
        /// entry of the payload it fetched on it (nil: fetch nothing).
        func connect(revisions: ClosedRange<Int> = ProtocolRevision.spoken) throws -> ChannelConnection {
            try ChannelConnection.connect(to: address, psk: testAccount.derived.channelPSK, limits: ChannelLimits(),
                                          identity: TLSContext.randomIdentity(), revisions: revisions)
        }

        func fetchEntry(on connection: ChannelConnection) throws -> DocumentEntry {
            let (_, kept) = try ActivityCoding.decode(try fetchPayload(on: connection), keeping: [DocumentEntry.payloadKey])
            let entries = try DocumentEntry.entries(try #require(kept[DocumentEntry.payloadKey]))
            return try #require(entries.values.first)
        }

        func fetchPayload(on connection: ChannelConnection) throws -> [UInt8] {
            let id = activity.activityID
            let reply = try whileDispatching { () -> Result<Frame, HandoffError> in
                do throws(HandoffError) {
                    try connection.send(ExchangeMessage.fetch(id).frame, timeout: 5)
                    return .success(try connection.receive(timeout: 10))
                } catch { return .failure(error) }
            }.get()
            guard case .payload(let bytes) = try ExchangeMessage(reply, revision: connection.revision) else {
                throw TestFailure("no payload: \(reply)")
            }
            return bytes
        }
    }

    /// Sends a request and reads every frame until the connection ends
    /// (bounded): what a lying receiver learns.
    static func ask(_ request: ExchangeMessage, on connection: ChannelConnection) -> (frames: [Frame], ended: HandoffError?) {
        var frames: [Frame] = []
        do throws(HandoffError) {
            try connection.send(request.frame, timeout: 5)
            for _ in 0..<10_000 {
                let frame = try connection.receive(timeout: 10)
                frames.append(frame)
                if frame.type == ExchangeMessage.Kind.error.rawValue || frame.type == StreamFrame.end { return (frames, nil) }
            }
        } catch {
            return (frames, error)
        }
        return (frames, nil)
    }

    static func error(_ frame: Frame?) -> (Int32, String)? {
        guard let frame, case .error(let code, let message)? = try? ExchangeMessage(frame) else { return nil }
        return (code, message)
    }

    static let text = String(repeating: "a line of the plan\n", count: 2000)  // 38,000 bytes: three DATA frames

    @Test func aDocumentIsServedOnlyWhenOfferedWithThatHash() throws {
        let homes = try Homes()
        try homes.write(homes.a + "/notes/plan.txt", Self.text)
        let sender = try Sender(homes, path: homes.a + "/notes/plan.txt")
        let connection = try sender.connect()
        defer { connection.close() }
        // Nothing fetched yet: nothing offered, not even for the right id.
        let digest = DocumentHostileTests.sha256(Array(Self.text.utf8))
        let early = Self.ask(.documentOpen(sender.activity.activityID, sha256: digest), on: connection)
        #expect(Self.error(early.frames.first).map { $0.0 } == 4608)
        #expect(Self.error(early.frames.first)?.1 == "the document is not offered")
        let entry = try sender.fetchEntry(on: connection)
        #expect(entry.facts.sha256 == digest)
        for (id, hash) in [(ActivityID(), digest), (sender.activity.activityID, Array(digest.reversed())),
                           (sender.activity.activityID, [UInt8](repeating: 0, count: 32))] {
            let refused = Self.ask(.documentOpen(id, sha256: hash), on: connection)
            #expect(refused.frames.count == 1 && refused.ended == nil)
            #expect(Self.error(refused.frames.first)?.1 == "the document is not offered")
        }
        // The refusals left the connection usable: the offered one is served.
        let served = Self.ask(.documentOpen(sender.activity.activityID, sha256: digest), on: connection)
        #expect(served.frames.first.flatMap { try? ExchangeMessage($0) } == .documentAccepted(size: UInt64(Self.text.utf8.count)))
        #expect(served.frames.last?.type == StreamFrame.end)
        let bytes = served.frames.dropFirst().filter { $0.type == StreamFrame.data }.flatMap(\.payload)
        #expect(bytes == Array(Self.text.utf8))
    }

    /// Revision 3 knows no DOCUMENT_OPEN: a connection that agreed on it
    /// hears the unknown frame's ERROR 4608, then the end.
    @Test func aDocumentOpenOnARevision3ConnectionIsAnUnknownFrame() throws {
        let homes = try Homes()
        try homes.write(homes.a + "/notes/plan.txt", Self.text)
        let sender = try Sender(homes, path: homes.a + "/notes/plan.txt")
        let old = try sender.connect(revisions: 1...3)
        defer { old.close() }
        #expect(old.revision == 3)
        let digest = DocumentHostileTests.sha256(Array(Self.text.utf8))
        let answer = Self.ask(.documentOpen(sender.activity.activityID, sha256: digest), on: old)
        #expect(Self.error(answer.frames.first).map { $0.0 } == 4608)
        #expect(Self.error(answer.frames.first)?.1.contains("unknown frame type 9") == true)
        #expect(throws: HandoffError.self) { _ = try old.receive(timeout: 5) }
        // A revision-3 fetcher gets the payload as the app made it.
        let plain = try sender.connect(revisions: 1...3)
        defer { plain.close() }
        let payload = try sender.fetchPayload(on: plain)
        let (activity, kept) = try ActivityCoding.decode(payload, keeping: [DocumentEntry.payloadKey])
        #expect(kept.isEmpty)
        #expect(activity.userInfo[DocumentHostileTests.key] == sender.activity.userInfo[DocumentHostileTests.key])
    }

    /// The file's size or time is not what was described any more: the
    /// sender refuses before it sends a byte.
    @Test(arguments: ["grown", "touched", "replaced by a link", "removed",
                      "replaced by one of the same size and time", "rewritten with its time put back",
                      "replaced by a FIFO"])
    func aDocumentChangedSinceItWasOfferedIsRefused(_ change: String) throws {
        let homes = try Homes()
        let path = homes.a + "/notes/plan.txt"
        try homes.write(path, Self.text)
        let sender = try Sender(homes, path: path)
        let connection = try sender.connect()
        defer { connection.close() }
        let entry = try sender.fetchEntry(on: connection)
        switch change {
        case "grown": try homes.write(path, Self.text + "one more line\n")
        case "touched":
            var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        case "replaced by a link":
            try homes.write(homes.outside + "/plan.txt", Self.text)
            unlink(path)
            #expect(symlink(homes.outside + "/plan.txt", path) == 0)
        case "replaced by one of the same size and time":
            // Another inode, the same size and modification time: not the
            // file that was described, whatever its bytes.
            var st = stat()
            #expect(stat(path, &st) == 0)
            try homes.write(path + ".new", String(Self.text.reversed()))
            var times = [st.st_atim, st.st_mtim]
            #expect(utimensat(AT_FDCWD, path + ".new", &times, 0) == 0)
            #expect(rename(path + ".new", path) == 0)
        case "rewritten with its time put back":
            // The same inode, size and time: only the change time tells.
            var st = stat()
            #expect(stat(path, &st) == 0)
            try homes.write(path, String(Self.text.reversed()))
            var times = [st.st_atim, st.st_mtim]
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        case "replaced by a FIFO":
            // Opened for reading with no writer, it would hold the sender's
            // thread in open(2) until the exchange's deadline.
            unlink(path)
            #expect(mkfifo(path, 0o600) == 0)
        default: unlink(path)
        }
        let answer = Self.ask(.documentOpen(sender.activity.activityID, sha256: entry.facts.sha256), on: connection)
        #expect(answer.frames.count == 1, "\(change): \(answer.frames.map(\.type))")
        let (code, message) = try #require(Self.error(answer.frames.first))
        #expect(code == 4608)
        #expect(message.contains("changed since it was offered") || message.contains("can no longer be read"), "\(change): \(message)")
        #expect(!message.contains(homes.a), "the sender's path left it: \(message)")
    }
}
