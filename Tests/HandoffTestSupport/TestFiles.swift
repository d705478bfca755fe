// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffModel

/// How tests write files: close-on-exec from the open (a program another
/// test starts meanwhile inherits nothing), into a temporary name in the
/// same folder that is closed, given its mode and renamed into place, so
/// no one ever reads, or execs, a file half written (Foundation's
/// `Data.write(to:)` opens without O_CLOEXEC; Tests/abi/check_cloexec.py).
public enum TestFiles {
    /// Writes `bytes` to `path` (its folder must exist), mode `mode`
    /// whatever the umask.
    /// - Throws: `.io` naming the path and the system's reason.
    public static func write(_ path: String, _ bytes: some Sequence<UInt8>, mode: mode_t = 0o644) throws(HandoffError) {
        let content = Array(bytes)
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("cannot create \(temporary)") }
        var written = 0
        while written < content.count {
            let n = content[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let error = failure("cannot write \(temporary)")
                close(fd)
                unlink(temporary)
                throw error
            }
            written += n
        }
        guard fchmod(fd, mode) == 0, close(fd) == 0 else {
            let error = failure("cannot finish \(temporary)")
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let error = failure("cannot rename \(temporary) to \(path)")
            unlink(temporary)
            throw error
        }
    }

    private static func failure(_ what: String) -> HandoffError {
        HandoffError(.io, "\(what): \(String(cString: strerror(errno)))")
    }
}
