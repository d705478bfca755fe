// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffTestSupport

/// A real `mosquitto` for one test, on loopback, with a config and a
/// password file the test writes in a temporary folder (password auth,
/// anonymous refused, no persistence). `stop()` kills it and removes the
/// folder; call it in a `defer`.
final class TestBroker {
    static let program = "/usr/sbin/mosquitto"
    static let passwordTool = "/usr/bin/mosquitto_passwd"
    static let publishTool = "/usr/bin/mosquitto_pub"
    static var available: Bool { [program, passwordTool, publishTool].allSatisfy { (path: String) in access(path, X_OK) == 0 } }

    let folder: String
    let port: Int
    private var daemon: ChildProcess

    init(users: [(String, String)]) throws {
        var template = Array("/tmp/handoff-mqtt-\(getpid())-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw TestFailure("mkdtemp: \(String(cString: strerror(errno)))") }
        folder = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        do {
            port = try Self.freePort()
            try TestFiles.write(folder + "/passwd", [])
            for (user, password) in users {
                let tool = try ChildProcess.start(Self.passwordTool, ["-b", folder + "/passwd", user, password])
                guard tool.wait(timeout: 30) == 0 else { throw TestFailure("mosquitto_passwd failed") }
            }
            // As root, mosquitto would switch to its own user, which could not read the folder.
            let user = getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"
            try TestFiles.write(folder + "/mosquitto.conf", """
                listener \(port) 127.0.0.1
                allow_anonymous false
                password_file \(folder)/passwd
                persistence false
                user \(user)
                log_dest stdout
                log_type error
                log_type warning

                """.utf8)
            chmod(folder + "/passwd", 0o600)
            daemon = try Self.launch(folder: folder, port: port)
        } catch {
            AccountFixtures.removeTree(folder)
            throw error
        }
    }

    /// Starts mosquitto and waits until it accepts a connection (its log
    /// is block-buffered on a pipe, so it cannot tell us); at most 30 s.
    private static func launch(folder: String, port: Int) throws -> ChildProcess {
        let daemon = try ChildProcess.start(Self.program, ["-c", folder + "/mosquitto.conf"])
        var listening = false
        for _ in 0..<1500 where !listening {
            listening = Self.accepts(port)
            if !listening { usleep(20_000) }
        }
        guard listening else {
            daemon.stop()
            throw TestFailure("mosquitto did not listen on port \(port) within 30 s")
        }
        return daemon
    }

    /// Kills the broker and starts it again on the same port (no
    /// persistence: retained messages are gone, as after a crash).
    func restart() throws {
        daemon.stop()
        daemon = try Self.launch(folder: folder, port: port)
    }

    func stop() {
        daemon.stop()
        AccountFixtures.removeTree(folder)
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A TCP port free on 127.0.0.1 now (the kernel's choice).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { throw TestFailure("bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
