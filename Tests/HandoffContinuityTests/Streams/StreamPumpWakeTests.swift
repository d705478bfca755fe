// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffModel
@testable import HandoffContinuity
import Testing

/// A stream whose host stops reading blocks its inbound direction until
/// the host's socket has room, with no time limit (docs/agent.md §8: no
/// polling period); stopping must still end it at once, because the
/// failure itself wakes that wait.
@Suite struct StreamPumpWakeTests {
    @Test func aStreamWaitingForAHostThatDoesNotReadEndsWhenStopped() throws {
        let stop = OneShot<Bool>()
        // The other device sends DATA frames as fast as it can.
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { c in
            let count = StreamFrame.headerSize + StreamFrame.maxDataPerFrame
            let frame = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 8)
            defer { frame.deallocate() }
            frame.initializeMemory(as: UInt8.self, repeating: 0x5A, count: count)
            StreamFrame.writeHeader(StreamFrame.data, payloadCount: StreamFrame.maxDataPerFrame, to: frame)
            while stop.wait(seconds: 0) == nil, (try? c.writeRaw(frame, count: count, timeout: 30)) != nil {}
        }
        defer { stop.fulfil(true); server.stop() }
        let connection = try ChannelConnection.connect(to: ChannelTest.address(server), psk: ChannelTest.key)
        let pair = try LocalSocketPair()  // the host's end is never read
        let registry = StreamRegistry(threads: ThreadGroup())
        registry.willStart()
        let local = pair.library
        let ended = OneShot<Bool>()
        #expect(startDetachedThread(named: "test-inbound") {
            StreamPump.run(connection: connection, local: local, buffered: [], registry: registry)
            ended.fulfil(true)
        })
        // The inbound direction is asleep waiting for room: in poll on the
        // host's socket and the failure signal, with no timeout.
        #expect(ChannelTest.eventually(20) { Self.threadWaitsInPoll(named: "test-inbound", descriptors: 2, timeout: -1) })
        registry.drainAndEnd(within: 0)
        #expect(ended.wait(seconds: 10) == true)
        _ = pair.host
    }

    /// Whether a thread of this process named `name` is blocked in
    /// poll(fds, `descriptors`, `timeout`) (/proc/self/task/*/syscall).
    static func threadWaitsInPoll(named name: String, descriptors: Int, timeout: Int32) -> Bool {
        guard let tasks = opendir("/proc/self/task") else { return false }
        defer { closedir(tasks) }
        while let entry = readdir(tasks) {
            let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard tid.first?.isNumber == true,
                  read("/proc/self/task/\(tid)/comm").trimmingSuffixNewline == name else { continue }
            let words = read("/proc/self/task/\(tid)/syscall").split(separator: " ")
            guard words.count >= 4, words[0] == "7",
                  let n = Int(words[2].dropFirst(2), radix: 16), let t = UInt64(words[3].dropFirst(2), radix: 16) else { return false }
            return n == descriptors && Int32(truncatingIfNeeded: t) == timeout
        }
        return false
    }

    static func read(_ path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = Glibc.read(fd, &buffer, buffer.count)
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
    }
}

private extension String {
    var trimmingSuffixNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}
