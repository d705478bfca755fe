// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffModel
import HandoffContinuity
@testable import HandoffRelay
import HandoffTestSupport
import Testing

/// The relay's files and pipe frames against the checked-in regression
/// corpus (Tests/fuzz/regressions/relay-*), as the relay fuzz targets
/// decode them: a value or a refusal, never a trap.
@Suite struct RelayFileRegressionTests {
    /// The relay file, loaded from a private directory through the store:
    /// hand-made damage refused as `.malformedData`, seeds loaded and
    /// saved back the same.
    @Test(arguments: FuzzCorpus.names("relay-file").map { ($0, false) }
        + ["tls-user", "ca-v6", "plain-allowed"].map { ($0, true) })
    func relayFile(_ name: String, _ seed: Bool) throws {
        let bytes = seed ? try FuzzCorpus.seed("relay-file", name) : try FuzzCorpus.read("relay-file", name)
        var template = Array("/tmp/handoff-fuzz-regression-XXXXXX".utf8CString)
        let directory = try #require(mkdtemp(&template).map { String(cString: $0) })
        let store = RelayConfigurationStore(directory: directory)
        defer { unlink(store.path); unlink(store.passwordPath); rmdir(directory) }
        let fd = open(store.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        #expect(fd >= 0 && write(fd, bytes, bytes.count) == bytes.count && close(fd) == 0)
        let loaded: RelayConfiguration?
        do throws(HandoffError) {
            loaded = try store.load()
        } catch {
            #expect(!seed && error.code == .malformedData, "\(name): \(error)")
            return
        }
        let c = try #require(loaded, "\(name): a relay file loads as none")
        #expect(seed || FuzzCorpus.foundByFuzzer(name), "\(name) was accepted")
        try store.save(c)
        #expect(try store.load() == c, "\(name)")
    }

    @Test func theCorpusIsThere() {
        for target in ["relay-file", "relay-pipe-frame"] {
            #expect(FuzzCorpus.names(target).count >= 3, "Tests/fuzz/regressions/\(target) is missing")
        }
    }
}

/// The relay's pipe codec against its regression corpus: every hand-made
/// input is refused, and a fuzzer's finding, if accepted, re-encodes. Each
/// then goes to an empty pipe table as the relay-pipe-frame target sends
/// it, under the target's rule: a pipe opened, or the message dropped with
/// no pipe left behind and no answer but §11's RESET to a frame of an
/// unknown pipe.
@Suite struct RelayFuzzRegressionTests {
    static let topicPipe = RelayPipeID(bytes: Array(0xC0...0xCF))!
    static let account = try! AccountKey(bytes: Array(0..<32))
    static let me: [UInt8] = Array(0xB0...0xBF)
    static let other: [UInt8] = Array(0xA0...0xAF)

    @Test(arguments: FuzzCorpus.names("relay-pipe-frame"))
    func relayPipeFrame(_ name: String) throws {
        let bytes = try FuzzCorpus.read("relay-pipe-frame", name)
        guard let first = bytes.first else { return }
        let message = Array(bytes.dropFirst())
        switch RelayPipeFrame.decode(message, expectedPipe: first & 1 == 0 ? nil : Self.topicPipe) {
        case .success(let frame):
            #expect(FuzzCorpus.foundByFuzzer(name), "\(name) was accepted")
            #expect(frame.encoded() == message)
        case .failure(let reason):
            #expect(reason == .malformed || reason == .oversized)
        }
        try tableRule(name, message)
    }

    private func tableRule(_ name: String, _ message: [UInt8]) throws {
        let topics = RelayTopics(accountKey: Self.account)
        var table = RelayPipeTable(account: Self.account, ownDeviceID: Self.me, now: 0)
        let topic = RelayTopic.pipe(to: topics.deviceTag(Self.me), from: topics.deviceTag(Self.other), pipe: Self.topicPipe)
        switch table.receive(message, topic: topic, now: 0) {
        case .accepted(let key):
            #expect(table.pipes[key] != nil, "\(name)")
        case .dropped(let reason):
            #expect(table.pipes.isEmpty, "\(name) opened a pipe")
            let answers = table.poll(now: 0)
            #expect(table.pipes.isEmpty && table.takeForgotten().isEmpty, "\(name)")
            guard !answers.isEmpty else { return }
            let frame = try #require(try? RelayPipeFrame.decode(message, expectedPipe: Self.topicPipe).get(), "\(name) was answered")
            #expect(reason == .unknownPipe && frame.kind != .open && frame.kind != .reset, "\(name) was answered")
            #expect(answers.map(\.0) == [RelayPipeTable.Key(peer: topics.deviceTag(Self.other), pipe: Self.topicPipe)], "\(name)")
            #expect(answers.map(\.1) == [.reset(pipe: Self.topicPipe, seq: 0, ack: frame.seq, window: 0, reason: .closed)], "\(name)")
        case .frame, .refused, .acceptedShedding:
            Issue.record("\(name): an empty table found a pipe or refused one")
        }
    }
}
