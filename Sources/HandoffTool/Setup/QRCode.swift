// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffBase
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The pairing code as a QR code for a terminal, drawn by Debian's
/// `qrencode` tool (a well-kept QR encoder; no QR code is written here).
/// The text goes to it on standard input, never as an argument: the
/// process list must not show the secret.
enum QRCode {
    /// What qrencode may print at most: a version-3 code is 29 modules,
    /// about 2 KiB as UTF-8 blocks; anything far larger is not its output.
    static let maxOutput = 64 * 1024
    static let timeout = 5.0

    /// The QR code drawn with Unicode half blocks (ANSI colours on a
    /// terminal, so it scans on dark and light themes alike), ending in a
    /// newline. Throws `.notFound` when qrencode is not on PATH, `.io`
    /// when it fails.
    static func draw(_ text: String, forTerminal: Bool) throws(HandoffError) -> String {
        guard let tool = findOnPath("qrencode") else {
            throw HandoffError(.notFound,
                "--qr needs the qrencode tool, which is not installed (on PATH): install it "
                    + "(Debian/Ubuntu: apt install qrencode), or run `handoff account code` without --qr for the code as text")
        }
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        guard clinux_pipe2(&input, O_CLOEXEC) == 0 else { throw HandoffError(.io, "cannot create a pipe for qrencode") }
        guard clinux_pipe2(&output, O_CLOEXEC) == 0 else {
            close(input[0]); close(input[1])
            throw HandoffError(.io, "cannot create a pipe for qrencode")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, output[1], 2)
        // -t: the drawing; -m 2: a quiet zone scanners accept; -l M: 15 % error correction.
        let arguments = [tool, "-t", forTerminal ? "ANSIUTF8" : "UTF8", "-m", "2", "-l", "M", "-o", "-"]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environment = ["LC_ALL=C.UTF-8"]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tool, &actions, nil, argv, envp)
        close(input[0])
        close(output[1])
        guard spawned == 0 else {
            close(input[1]); close(output[0])
            throw HandoffError(.io, "cannot run \(tool): \(String(cString: strerror(spawned)))")
        }
        // A few dozen bytes: the pipe takes them without blocking.
        let bytes = Array(text.utf8)
        let wrote = bytes.withUnsafeBytes { write(input[1], $0.baseAddress, $0.count) }
        close(input[1])
        let drawing = readAll(output[0], until: monotonicSeconds() + timeout, pid: pid)
        close(output[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard wrote == bytes.count, status == 0, let drawing, !drawing.isEmpty else {
            throw HandoffError(.io, "\(tool) could not draw the QR code (\(drawing.map { $0.trimmingWhitespace } ?? "no answer in time")): "
                + "run `handoff account code` without --qr for the code as text")
        }
        return drawing.hasSuffix("\n") ? drawing : drawing + "\n"
    }

    /// PATH only: a person who took qrencode off PATH means it.
    private static func findOnPath(_ name: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? ""
        for folder in path.split(separator: ":") where folder.hasPrefix("/") {
            let candidate = "\(folder)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// What the tool prints, as UTF-8; nil (and the tool killed) past the
    /// deadline or the size bound.
    private static func readAll(_ fd: Int32, until deadline: Double, pid: pid_t) -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let left = Int32(max(0, (deadline - monotonicSeconds()) * 1000))
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, left)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 || bytes.count > maxOutput {
                kill(pid, SIGKILL)  // ours, and over its bounds
                return nil
            }
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes += buffer[0..<n]
        }
    }
}
