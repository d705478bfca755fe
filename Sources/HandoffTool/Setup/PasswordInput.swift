// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// A secret read without ever being on the command line: typed at the
/// terminal with echo off, or read from a file (`-`: standard input).
enum PasswordInput {
    /// Reads a whole password file: at most `maxLength` bytes once one
    /// trailing newline is dropped. `-` is standard input.
    static func read(file: String, maxLength: Int) throws(HandoffError) -> String {
        let fd = file == "-" ? 0 : open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let error = errno
            if error == ENOENT { throw HandoffError(.notFound, "the password file \(file) does not exist") }
            throw HandoffError(.io, "cannot read the password file \(file): \(String(cString: strerror(error)))")
        }
        defer { if fd != 0 { close(fd) } }
        let name = file == "-" ? "standard input" : file
        var info = stat()
        if fd != 0, fstat(fd, &info) == 0 {
            guard info.st_mode & S_IFMT != S_IFDIR else {
                throw HandoffError(.io, "the password file \(file) is a directory")
            }
        }
        // One byte more than a password and its newline tells "too long".
        let limit = maxLength + 2
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, min($0.count, limit - bytes.count)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw HandoffError(.io, "cannot read \(name): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        if bytes.last == 0x0A { bytes.removeLast() }
        guard bytes.count <= maxLength else {
            throw HandoffError(.invalidArgument, "the password in \(name) is longer than \(maxLength) bytes")
        }
        guard !bytes.isEmpty else {
            throw HandoffError(.invalidArgument, "\(name) holds no password (it is empty)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw HandoffError(.invalidArgument, "the password in \(name) is not UTF-8 text")
        }
        return text
    }

    /// Asks on the controlling terminal (/dev/tty, so standard input and
    /// output may be redirected) with echo off; nil when no terminal is
    /// there. Ctrl-C while asking puts the echo back before the tool ends.
    static func prompt(_ question: String, maxLength: Int) throws(HandoffError) -> String? {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK)
        quiet.c_lflag |= tcflag_t(ECHONL | ICANON)
        EchoGuard.arm(fd: fd, saved: saved)
        defer { EchoGuard.disarm() }
        // Echo off before the question: whoever answers it is not echoed.
        guard tcsetattr(fd, TCSAFLUSH, &quiet) == 0 else {
            throw HandoffError(.io, "cannot turn the terminal's echo off: \(String(cString: strerror(errno)))")
        }
        Output.write(question, to: fd)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        var ended = false
        while line.count <= maxLength + 1 {
            let n = Glibc.read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            if byte == 0x0A {
                ended = true
                break
            }
            line.append(byte)
        }
        guard ended || !line.isEmpty else {
            throw HandoffError(.invalidArgument, "no password was typed (end of input)")
        }
        if line.last == 0x0D { line.removeLast() }
        guard line.count <= maxLength else {
            throw HandoffError(.invalidArgument, "the password is longer than \(maxLength) bytes")
        }
        guard let text = String(validating: line, as: UTF8.self) else {
            throw HandoffError(.invalidArgument, "the password is not UTF-8 text")
        }
        return text
    }

}

/// Puts the terminal's echo back if a signal ends the tool while a
/// password is asked for (the shell would otherwise be left silent).
private enum EchoGuard {
    nonisolated(unsafe) static var fd: Int32 = -1
    nonisolated(unsafe) static var saved = termios()
    static let signals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    static func arm(fd: Int32, saved: termios) {
        Self.fd = fd
        Self.saved = saved
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                // Async-signal-safe only: tcsetattr, then the default action.
                _ = tcsetattr(EchoGuard.fd, TCSANOW, &EchoGuard.saved)
                Glibc.signal(number, SIG_DFL)
                raise(number)
            }
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
    }

    static func disarm() {
        _ = tcsetattr(fd, TCSAFLUSH, &saved)
        for signal in signals { Glibc.signal(signal, SIG_DFL) }
        fd = -1
    }
}
