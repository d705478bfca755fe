// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Runs a read-only system tool (nft, iptables) and captures what it
/// prints, with a time limit. Never through a shell.
struct ExternalCommand {
    var status: Int32
    var output: String

    /// Searches PATH, then the sbin folders (often not on a user's PATH).
    static func find(_ name: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        for folder in folders where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs `executable` with `arguments`; stdout and stderr together, at
    /// most 1 MiB. nil when it cannot be started; killed after `timeout` s.
    static func run(_ executable: String, _ arguments: [String], timeout: Double = 3) -> ExternalCommand? {
        var fds: [Int32] = [-1, -1]
        guard clinux_pipe2(&fds, O_CLOEXEC) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // A plain environment: the C locale, so messages are the ones we parse.
        let environment: [String] = ["LC_ALL=C", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(fds[1])
        guard spawned == 0 else {
            close(fds[0])
            return nil
        }
        let output = readAll(fds[0], until: monotonicSeconds() + timeout, pid: pid)
        close(fds[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7f == 0
        return ExternalCommand(status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), output: output)
    }

    private static func readAll(_ fd: Int32, until deadline: Double, pid: pid_t) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while bytes.count < 1 << 20 {
            let left = Int32(max(0, (deadline - monotonicSeconds()) * 1000))
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, left)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 {
                kill(pid, SIGKILL)  // over time: ours to end
                break
            }
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
