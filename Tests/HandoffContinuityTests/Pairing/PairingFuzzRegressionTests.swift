// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffModel
@testable import HandoffContinuity
import HandoffTestSupport
import Testing

/// Replays Tests/fuzz/regressions/pairing-messages (hand-made attacks)
/// and the seeds through what the pairing-messages fuzz target drives: no
/// attack yields a beacon, a message a machine accepts, or a key.
@Suite struct PairingFuzzRegressionTests {
    static let session: [UInt8] = Array(0xc0...0xcf)

    /// The frames the real reader takes from `bytes`, as a connection
    /// receives them, up to the first refusal.
    static func frames(_ bytes: [UInt8]) throws -> [Frame] {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        defer { close(fds[1]) }
        #expect(write(fds[1], bytes, bytes.count) == bytes.count)
        shutdown(fds[1], Int32(SHUT_WR))
        let connection = PairingConnection(fd: fds[0], peer: "test")
        var frames: [Frame] = []
        while frames.count < 64, let frame = try? connection.readFrame() { frames.append(frame) }
        return frames
    }

    @Test(arguments: FuzzCorpus.names("pairing-messages"))
    func attacksAreRefused(_ name: String) throws {
        let bytes = try FuzzCorpus.read("pairing-messages", name)
        #expect(PairingBeacon.parse(bytes) == nil)
        var joiner = PairingJoinerMachine(sessionID: Self.session, deviceName: "joiner")
        for frame in try Self.frames(bytes) {
            #expect(throws: HandoffError.self, "\(name) was accepted") { try joiner.receive(frame) }
        }
    }

    @Test func seedsAreAccepted() throws {
        func seed(_ name: String) throws -> [UInt8] { try FuzzCorpus.seed("pairing-messages", name) }
        #expect(PairingBeacon.parse(try seed("beacon"))?.sessionID == Self.session)
        #expect(try Self.frames(try seed("joiner-side")).map(\.type) == [0x21, 0x23, 0x25])
        #expect(try Self.frames(try seed("sponsor-side")).map(\.type) == [0x22, 0x24])
    }
}
