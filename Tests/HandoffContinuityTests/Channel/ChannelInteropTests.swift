// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
import Testing
#if canImport(Glibc)
import Glibc
#endif

private let opensslPath = "/usr/bin/openssl"
private let opensslPresent = access(opensslPath, X_OK) == 0

/// Stock OpenSSL tools talk to the channel: it is plain TLS 1.3 with an
/// external PSK, nothing of our own.
@Suite(.enabled(if: opensslPresent, "\(opensslPath) is not installed: the interoperability tests need the openssl command"))
struct ChannelInteropTests {
    static let keyHex = ChannelTest.key.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()

    @Test func opensslSClientCompletesAHandshakeWithTheServer() throws {
        let handled = ChannelRecorder<String>()
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { connection in
            handled.append("\(connection.keyExchangeGroup ?? "none") revision \(connection.revision)")
            try? connection.send(Frame(type: 0x0A, payload: Array("hello from handoff\n".utf8)), timeout: 5)
        }
        defer { server.stop() }
        let output = try OpenSSLProcess.run([
            "s_client", "-tls1_3", "-psk", Self.keyHex, "-psk_identity", "handoff1.x",
            "-connect", "127.0.0.1:\(server.port)", "-ign_eof",
        ], timeout: 10)
        // No ALPN offered: revision 1, as with a 0.1.0 client.
        #expect(handled.all == ["x25519 revision 1"])
        #expect(output.contains("No ALPN negotiated"), "\(output)")
        #expect(output.contains("TLSv1.3, Cipher is TLS_AES_128_GCM_SHA256"), "\(output)")
        #expect(output.contains("Server Temp Key: X25519"), "\(output)")
        #expect(output.contains("hello from handoff"), "\(output)")
    }

    /// The revisions travel as standard ALPN ids (docs/PROTOCOL.md §10):
    /// the server picks the highest it speaks from a stock client's list.
    @Test func opensslSClientOfferingRevisionsGetsTheHighestTheServerSpeaks() throws {
        let handled = ChannelRecorder<Int>()
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { connection in
            handled.append(connection.revision)
        }
        defer { server.stop() }
        let output = try OpenSSLProcess.run([
            "s_client", "-tls1_3", "-psk", Self.keyHex, "-psk_identity", "handoff1.x",
            "-alpn", "handoff/9,handoff/\(ProtocolRevision.current),handoff/1,h2", "-connect", "127.0.0.1:\(server.port)", "-ign_eof",
        ], timeout: 10)
        #expect(handled.all == [ProtocolRevision.current])
        #expect(output.contains("ALPN protocol: handoff/\(ProtocolRevision.current)"), "\(output)")
    }

    @Test func opensslSClientWithAnotherKeyIsRefused() throws {
        let handled = ChannelRecorder<Bool>()
        let server = try ChannelServer(listeningOn: ChannelTest.anyPort, psk: ChannelTest.key) { _ in handled.append(true) }
        defer { server.stop() }
        let wrong = String(repeating: "42", count: 32)
        let output = try OpenSSLProcess.run([
            "s_client", "-tls1_3", "-psk", wrong, "-psk_identity", "handoff1.x",
            "-connect", "127.0.0.1:\(server.port)", "-ign_eof",
        ], timeout: 10)
        #expect(output.contains("alert"), "\(output)")
        #expect(handled.count == 0)
    }

    /// s_server checks the identity it is told to expect (default
    /// "Client_identity") and offers no PSK for any other, so the client
    /// connects with the fixed identity "handoff1.x" here; libhandoff's own
    /// clients always send a fresh random one.
    /// With `-groups P-256` s_server answers the client's x25519 key share
    /// with a HelloRetryRequest: OpenSSL then asks the client's PSK callback
    /// again, and the identity must stay the same.
    /// A server that announces no ALPN (s_server without -alpn, as a 0.1.0
    /// device) is revision 1; one whose list holds only "handoff/1"
    /// chooses revision 1 from the client's offer.
    @Test(arguments: [(nil, "x25519", nil), ("P-256", "secp256r1", nil), (nil, "x25519", "handoff/1")] as [(String?, String, String?)])
    func theClientCompletesAHandshakeWithOpensslSServer(groups: String?, expectedGroup: String, alpn: String?) throws {
        let port = ChannelTest.closedPort()
        let server = try OpenSSLProcess.start([
            "s_server", "-tls1_3", "-psk", Self.keyHex, "-psk_identity", "handoff1.x", "-nocert",
            "-accept", "127.0.0.1:\(port)", "-naccept", "1", "-www",
        ] + (groups.map { ["-groups", $0] } ?? []) + (alpn.map { ["-alpn", $0] } ?? []))
        defer { _ = server.finish(timeout: 5) }
        let address = SocketAddress(host: "127.0.0.1", port: port)
        var client: ChannelConnection?
        let end = monotonicSeconds() + 10
        while client == nil && monotonicSeconds() < end {
            do throws(HandoffError) {
                client = try ChannelConnection.connect(to: address, psk: ChannelTest.key, limits: ChannelLimits(),
                                                       identity: Array("handoff1.x".utf8))
            } catch {
                guard error.code == .connectionUnavailable else { throw error }
                usleep(50_000)  // s_server is still starting
            }
        }
        let connection = try #require(client)
        defer { connection.close() }
        #expect(connection.keyExchangeGroup == expectedGroup)
        #expect(connection.revision == 1)
        // -www answers an HTTP request over the session; the answer's first
        // four bytes "HTTP" read as a frame length of 0x48545450, which shows
        // application data decrypted in both directions.
        try connection.sendRaw(Array("GET / HTTP/1.0\r\n\r\n".utf8), timeout: 5)
        let error = ChannelTest.failure { () throws(HandoffError) in try connection.receive(timeout: 5) }
        #expect(error?.code == .malformedData)
        #expect(error?.message.contains("\(0x4854_5450)") == true, "\(String(describing: error))")
    }
}

/// /usr/bin/openssl as a child process, its output in a temporary file,
/// stdin from /dev/null (no pipe we could write into after it exits).
struct OpenSSLProcess {
    let pid: pid_t
    let outputPath: String

    static func start(_ arguments: [String]) throws -> OpenSSLProcess {
        let outputPath = "/tmp/handoff-channel-openssl-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).txt"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([opensslPath] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, opensslPath, &actions, nil, argv, environ)
        guard status == 0 else { throw HandoffError(.io, "could not start \(opensslPath): \(String(cString: strerror(status)))") }
        return OpenSSLProcess(pid: pid, outputPath: outputPath)
    }

    static func run(_ arguments: [String], timeout: Double) throws -> String {
        try start(arguments).finish(timeout: timeout)
    }

    /// Waits for the exit (killing the process after `timeout` seconds) and
    /// returns its output.
    func finish(timeout: Double) -> String {
        let end = monotonicSeconds() + timeout
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if monotonicSeconds() > end {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                break
            }
            usleep(10_000)
        }
        defer { unlink(outputPath) }
        guard let file = fopen(outputPath, "re") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
