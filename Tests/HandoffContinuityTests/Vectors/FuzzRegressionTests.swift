// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffModel
@testable import HandoffContinuity
import HandoffTestSupport
import Testing

/// Replays the checked-in regression corpus (Tests/fuzz/regressions/<target>/)
/// through the decoders the continuity fuzz targets call, without fuzzing:
/// a value or a refusal, never a trap. The hand-made files are all attacks,
/// so each must be refused.
@Suite struct FuzzRegressionTests {
    static let key: [UInt8] = Array(0..<32)

    @Test(arguments: FuzzCorpus.names("beacon-plaintext"))
    func beaconPlaintext(_ name: String) throws {
        let bytes = try FuzzCorpus.read("beacon-plaintext", name)
        if let beacon = BeaconCodec.parse(bytes) {
            #expect(FuzzCorpus.foundByFuzzer(name), "\(name) was accepted")
            #expect(try BeaconCodec.encode(beacon) == bytes, "\(name) is not canonical")
        }
    }

    @Test(arguments: FuzzCorpus.names("beacon-packet"))
    func beaconPacket(_ name: String) throws {
        let bytes = try FuzzCorpus.read("beacon-packet", name)
        #expect(BeaconCodec.open(bytes, key: Self.key) == nil, "\(name) opened without the key")
    }

    @Test(arguments: FuzzCorpus.names("exchange-message"))
    func exchangeMessage(_ name: String) throws {
        let bytes = try FuzzCorpus.read("exchange-message", name)
        guard let type = bytes.first else { return }
        let frame = Frame(type: type, payload: Array(bytes.dropFirst()))
        do {
            let message = try ExchangeMessage(frame)
            #expect(FuzzCorpus.foundByFuzzer(name), "\(name) was accepted")
            #expect(message.frame == frame)
            if message.revision > 3 { #expect(throws: HandoffError.self) { try ExchangeMessage(frame, revision: 3) } }
        } catch {
            #expect(error.code == .malformedData, "\(name): \(error)")
        }
    }

    /// The stream parser sees the bytes cut into reads as the fuzz target
    /// cuts them (byte 0: the cap, byte 1: the read size); each file ends in
    /// END or a malformed frame, and nothing is delivered after it.
    @Test(arguments: FuzzCorpus.names("stream-frames"))
    func streamFrames(_ name: String) throws {
        let bytes = try FuzzCorpus.read("stream-frames", name)
        guard bytes.count >= 2 else { return }
        let cap = bytes[0] == 0 ? ChannelLimits().maxFrameSize : Int(bytes[0]) * 64
        var parser = StreamFrameParser(maxFrameSize: cap)
        var delivered = 0, finished = false, afterFinish = 0
        let input = Array(bytes.dropFirst(2))
        input.withUnsafeBufferPointer { all in
            var offset = 0, chunk = Int(bytes[1]) * 67 + 1
            while offset < all.count {
                let n = min(chunk, all.count - offset)
                parser.parse(UnsafeBufferPointer(rebasing: all[offset..<(offset + n)])) { event in
                    if finished { afterFinish += 1 }
                    switch event {
                    case .data(let chunk): delivered += chunk.count
                    case .end, .malformed: finished = true
                    }
                    return true
                }
                offset += n
                chunk = chunk * 5 % 16_411 + 1
            }
        }
        #expect(finished || FuzzCorpus.foundByFuzzer(name), "\(name) was not refused")
        #expect(afterFinish == 0)
        #expect(delivered <= input.count)
    }

    /// Channel frames go through a real connection: the client writes the
    /// bytes raw (no checks), the server reads frames under the cap until
    /// it refuses one or the client closes. Byte 0 picks the cap as in the
    /// fuzz target.
    @Test(arguments: FuzzCorpus.names("channel-frames"))
    func channelFrames(_ name: String) throws {
        let bytes = try FuzzCorpus.read("channel-frames", name)
        guard bytes.count >= 2 else { return }
        var limits = ChannelLimits()
        limits.maxFrameSize = bytes[0] == 0 ? limits.maxFrameSize : Int(bytes[0]) * 16
        let received = ChannelRecorder<Frame>()
        let ended = OneShot<HandoffError.Code?>()
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key, limits: limits) { connection in
            // Bounded: every file holds at most a few thousand frames.
            for _ in 0..<100_000 {
                do throws(HandoffError) {
                    received.append(try connection.receive(timeout: 10))
                } catch {
                    ended.fulfil(error.code)
                    return
                }
            }
            ended.fulfil(nil)
        }
        defer { server.stop() }
        let client = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        let stream = Array(bytes.dropFirst(2))
        if !stream.isEmpty { try client.writeRaw(stream, count: stream.count, timeout: 10) }
        client.close()
        let code = ended.wait(seconds: 30)
        #expect(code != nil, "\(name): the server did not stop reading")
        let frames = received.all
        #expect(frames.allSatisfy { $0.length <= limits.maxFrameSize })
        let consumed = frames.flatMap { $0.encoded() }
        #expect(Array(stream.prefix(consumed.count)) == consumed, "\(name): frames differ from the bytes sent")
    }

    @Test(arguments: FuzzCorpus.names("pairing-code"))
    func pairingCode(_ name: String) throws {
        let text = String(decoding: try FuzzCorpus.read("pairing-code", name), as: UTF8.self)
        do {
            let key = try PairingCode.decode(text)
            #expect(FuzzCorpus.foundByFuzzer(name), "\(name) was accepted")
            #expect(try PairingCode.decode(PairingCode.encode(key)) == key)
        } catch {
            #expect(error.code == .invalidValue, "\(name): \(error)")
        }
    }

    /// The account and device files are loaded from a private directory,
    /// through the store's own checks and parser, as the fuzz targets do.
    @Test(arguments: FuzzCorpus.names("account-file").map { ("account-file", $0) }
        + FuzzCorpus.names("device-file").map { ("device-file", $0) })
    func accountFiles(_ target: String, _ name: String) throws {
        let bytes = try FuzzCorpus.read(target, name)
        var template = Array("/tmp/handoff-fuzz-regression-XXXXXX".utf8CString)
        let directory = try #require(mkdtemp(&template).map { String(cString: $0) })
        let store = AccountStore(directory: directory)
        let path = target == "account-file" ? store.accountPath : store.devicePath
        defer { unlink(path); rmdir(directory) }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        #expect(fd >= 0 && write(fd, bytes, bytes.count) == bytes.count && close(fd) == 0)
        do throws(HandoffError) {
            if target == "account-file" { _ = try store.loadAccount() } else { _ = try store.loadDevice() }
            #expect(FuzzCorpus.foundByFuzzer(name), "\(target)/\(name) was accepted")
        } catch {
            #expect([.malformedData, .io].contains(error.code), "\(target)/\(name): \(error)")
        }
    }

    /// Byte 0's low bit is the sender, as in the fuzz target. Whatever is
    /// accepted re-encodes and normalises in one step; an unknown type is
    /// told apart only behind a sound header.
    @Test(arguments: FuzzCorpus.names("agent-message"))
    func agentMessage(_ name: String) throws {
        let input = try FuzzCorpus.read("agent-message", name)
        guard let first = input.first else { return }
        let sender: AgentMessage.Sender = first & 1 == 0 ? .app : .agent
        let bytes = Array(input.dropFirst())
        let m1: AgentFrame
        do {
            m1 = try AgentFrame(decoding: bytes, from: sender)
        } catch {
            if case .unknownType(let type, _) = error {
                #expect(bytes.count >= 8 && bytes[0] == 1 && bytes[1] == type && AgentMessage.Kind(rawValue: type) == nil, "\(name)")
            }
            return
        }
        #expect(FuzzCorpus.foundByFuzzer(name), "\(name) was accepted")
        let m2 = try AgentFrame(decoding: try m1.encoded(), from: sender)
        let m3 = try AgentFrame(decoding: try m2.encoded(), from: sender)
        #expect(m2 == m3 && m3.requestID == m1.requestID, "\(name)")
        #expect(try m2.encoded() == m3.encoded(), "\(name)")
    }

    /// The settings file: hand-made attacks refused; what the fuzzer found
    /// (settings whose rewrite moved kept groups) reads back the same.
    @Test(arguments: FuzzCorpus.names("settings-file"))
    func settingsFile(_ name: String) throws {
        let bytes = try FuzzCorpus.read("settings-file", name)
        guard let settings = try? HandoffSettings(bytes: bytes, source: name) else { return }
        #expect(FuzzCorpus.foundByFuzzer(name), "\(name) was accepted")
        let again = try HandoffSettings(bytes: settings.fileBytes, source: name)
        #expect(again == settings && again.fileBytes == settings.fileBytes, "\(name)")
    }

    /// tailscaled's answer: hand-made attacks (an overflowing chunk size,
    /// nesting, a short body, an endless header) refused; the seeds read.
    @Test(arguments: FuzzCorpus.names("tailnet-status"))
    func tailnetStatus(_ name: String) throws {
        let bytes = try FuzzCorpus.read("tailnet-status", name)
        guard let status = try? TailnetStatus(response: bytes) else { return }
        #expect(FuzzCorpus.foundByFuzzer(name), "\(name) was accepted")
        #expect(status.peers.count <= TailnetStatus.maxPeers, "\(name)")
    }

    @Test func theTailnetSeedsRead() throws {
        let status = try TailnetStatus(response: FuzzCorpus.seed("tailnet-status", "chunked"))
        #expect(status.peers.map(\.name) == ["desk"] && status.otherUsers == 1 && status.shared == 1)
        #expect(try TailnetStatus(response: FuzzCorpus.seed("tailnet-status", "content-length")) == status)
    }

    /// The `documents` value of a lying peer: refused as malformed.
    @Test(arguments: FuzzCorpus.names("document-entries"))
    func documentEntries(_ name: String) throws {
        let bytes = try FuzzCorpus.read("document-entries", name)
        let limits = UserInfoCoding.decodingLimits(canonicalSizeAtMost: ActivityCoding.maxPayloadSize)
        guard let value = try? BinaryPropertyList.decode(bytes, limits: limits) else { return }
        do {
            _ = try DocumentEntry.entries(value)
            #expect(FuzzCorpus.foundByFuzzer(name), "\(name) was accepted")
        } catch {
            #expect(error.code == .malformedData, "\(name): \(error)")
        }
    }

    /// A lying payload reaches a receiver whose home holds `notes/plan.txt`
    /// ("plan") and a link out of it, with no sender to bring bytes from:
    /// refused, nothing written, as the document-payload target does.
    @Test(arguments: FuzzCorpus.names("document-payload"))
    func documentPayload(_ name: String) throws {
        let bytes = try FuzzCorpus.read("document-payload", name)
        let homes = try DocumentHandoffTests.Homes()
        try homes.write(homes.b + "/notes/plan.txt", "plan")
        #expect(symlink("/etc", homes.b + "/out") == 0)
        let before = DocumentHostileTests.tree(homes.root)
        let home = homes.b
        let receiver = DocumentReceiver { DocumentPlaces(home: home) }
        let result = receiver.resolve(bytes, revision: nil, from: "fuzz", bring: nil)
        if case .success = result { #expect(FuzzCorpus.foundByFuzzer(name), "\(name) was accepted") }
        #expect(DocumentHostileTests.tree(homes.root) == before, "\(name) wrote in the home")
    }

    /// The seeds that describe the home's file resolve to it; the others
    /// fail for want of a sender.
    @Test func theDocumentPayloadSeedsResolve() throws {
        let homes = try DocumentHandoffTests.Homes()
        try homes.write(homes.b + "/notes/plan.txt", "plan")
        let home = homes.b
        let receiver = DocumentReceiver { DocumentPlaces(home: home) }
        let same = try receiver.resolve(FuzzCorpus.seed("document-payload", "same"), revision: nil, from: "fuzz", bring: nil).get()
        let activity = try ActivityCoding.decode(same)
        #expect(activity.userInfo["NSUserActivityDocumentURLKey"] == .url(URLReference(string: FileURL.url(forPath: homes.b + "/notes/plan.txt"))!))
        let plain = try FuzzCorpus.seed("document-payload", "no-documents")
        #expect(try receiver.resolve(plain, revision: nil, from: "fuzz", bring: nil).get() == plain)
        for name in ["missing", "elsewhere", "syncthing"] {
            #expect(throws: HandoffError.self, "\(name)") { try receiver.resolve(FuzzCorpus.seed("document-payload", name), revision: nil, from: "fuzz", bring: nil).get() }
        }
    }

    @Test func theCorpusIsThere() {
        for target in ["beacon-plaintext", "beacon-packet", "channel-frames", "exchange-message", "stream-frames",
                       "pairing-code", "account-file", "device-file", "agent-message", "settings-file", "tailnet-status",
                       "document-entries", "document-payload"] {
            #expect(FuzzCorpus.names(target).count >= 3, "Tests/fuzz/regressions/\(target) is missing")
        }
    }
}
