// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
#if canImport(Glibc)
import Glibc
#endif

/// A system tool run to its end with what it prints captured, bounded in
/// time and size: never through a shell, standard output and error
/// together, standard input the bytes given (a secret stays off the
/// process list) or /dev/null. The doctor's read-only tools (nft,
/// iptables) and qrencode run through it.
struct BoundedRun {
    /// The exit status, or 128 + the signal that ended it.
    var status: Int32
    /// What it printed, at most `limit` bytes.
    var output: [UInt8]
    /// Still printing at the deadline or past `limit`: killed, `output` cut.
    var killed: Bool

    /// Why a tool did not start.
    struct Failure: Error {
        var reason: String
    }

    /// Runs `executable` with `arguments` in `environment`, feeding it
    /// `input` (a few KiB at most: written before its output is read),
    /// until it exits, `timeout` seconds pass or it prints more than
    /// `limit` bytes.
    static func run(_ executable: String, _ arguments: [String], environment: [String], input: [UInt8]? = nil,
                    timeout: Double, limit: Int) -> Result<BoundedRun, Failure> {
        var output: [Int32] = [-1, -1]
        guard clinux_pipe2(&output, O_CLOEXEC) == 0 else { return .failure(Failure(reason: "cannot create a pipe for \(executable)")) }
        var stdin: [Int32] = [-1, -1]
        if input != nil, clinux_pipe2(&stdin, O_CLOEXEC) != 0 {
            close(output[0]); close(output[1])
            return .failure(Failure(reason: "cannot create a pipe for \(executable)"))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if input != nil {
            posix_spawn_file_actions_adddup2(&actions, stdin[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, output[1], 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(output[1])
        if input != nil { close(stdin[0]) }
        guard spawned == 0 else {
            close(output[0])
            if input != nil { close(stdin[1]) }
            return .failure(Failure(reason: "cannot run \(executable): \(String(cString: strerror(spawned)))"))
        }
        if let input {
            let wrote = input.withUnsafeBytes { write(stdin[1], $0.baseAddress, $0.count) }
            close(stdin[1])
            // Part of its input is no input: ours to end (it then reads as a signal).
            if wrote != input.count { kill(pid, SIGKILL) }
        }
        let (bytes, killed) = readAll(output[0], until: Deadline(after: timeout), limit: limit, pid: pid)
        close(output[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7f == 0
        return .success(BoundedRun(status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), output: bytes,
                                   killed: killed))
    }

    /// Reads until the tool closes its end; kills it (ours, and over its
    /// bounds) at the deadline or past `limit`.
    private static func readAll(_ fd: Int32, until deadline: Deadline, limit: Int, pid: pid_t) -> ([UInt8], Bool) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            guard wait(fd, for: Int16(POLLIN), until: deadline) == .ready, bytes.count <= limit else {
                kill(pid, SIGKILL)
                return (Array(bytes.prefix(limit)), true)
            }
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return (bytes, false) }
            bytes += buffer[0..<n]
        }
    }
}
