// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
#if canImport(Glibc)
import Glibc
#endif

/// A child process for the tests: stdin from /dev/null, stdout on a pipe
/// the test reads lines from (readiness: dbus-daemon's address, the
/// fake's "ready"), stderr inherited. Always `stop()` or `wait()` it.
public final class ChildProcess {
    public let pid: pid_t
    private let output: Int32
    private var buffered: [UInt8] = []
    private var reaped = false

    private init(pid: pid_t, output: Int32) {
        self.pid = pid
        self.output = output
    }

    public static func start(_ program: String, _ arguments: [String]) throws -> ChildProcess {
        var fds: [Int32] = [-1, -1]
        guard clinux_pipe2(&fds, O_CLOEXEC) == 0 else { throw TestFailure("pipe failed") }
        // Close-on-exec: no other child inherits them (dup2 clears it on 1).
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, program, &actions, &attributes, argv, environ)
        close(fds[1])
        guard status == 0 else {
            close(fds[0])
            throw TestFailure("could not start \(program): \(String(cString: strerror(status)))")
        }
        return ChildProcess(pid: pid, output: fds[0])
    }

    deinit {
        stop()
        close(output)
    }

    /// The next line of its stdout, without the newline.
    public func readLine(timeout: Double) throws -> String {
        let end = monotonicSeconds() + timeout
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let left = end - monotonicSeconds()
            guard left > 0 else { throw TestFailure("no line from process \(pid) in \(timeout) s") }
            var entry = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(left * 1000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 512)
            let count = read(output, &chunk, chunk.count)
            guard count > 0 else { throw TestFailure("process \(pid) closed its output") }
            buffered += chunk[..<count]
        }
    }

    /// Waits for the exit; its status, or nil when it ran past `timeout`
    /// (then it is killed).
    @discardableResult
    public func wait(timeout: Double) -> Int32? {
        guard !reaped else { return nil }
        let end = monotonicSeconds() + timeout
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if monotonicSeconds() > end {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                reaped = true
                return nil
            }
            usleep(10_000)
        }
        reaped = true
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }

    /// SIGTERM, then SIGKILL if it has not gone after 10 s. Idempotent.
    public func stop() {
        guard !reaped else { return }
        kill(pid, SIGTERM)
        wait(timeout: 10)
    }
}
