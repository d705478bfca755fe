// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// `$XDG_RUNTIME_DIR/handoff/mpris-status`: one JSON line with the bridge's
/// last state (`offered` or `not-offered` and the reason), for `doctor`.
/// Written whole to a temporary file then renamed, so a reader never sees
/// half a line.
public enum MPRISStatusFile {
    public static func path(environment: [String: String]) -> String? {
        guard let dir = environment["XDG_RUNTIME_DIR"], dir.hasPrefix("/") else { return nil }
        return dir + "/handoff/mpris-status"
    }

    public static func write(_ line: String, environment: [String: String]) {
        guard let path = path(environment: environment) else { return }
        let dir = String(path.dropLast("/mpris-status".count))
        mkdir(dir, 0o700)
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let bytes = Array((line + "\n").utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        if written == bytes.count { rename(temporary, path) } else { unlink(temporary) }
    }

    /// The file's line, at most 8 KiB read; nil when absent.
    public static func read(environment: [String: String]) -> String? {
        guard let path = path(environment: environment) else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 8192)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[..<n], as: UTF8.self)
        return text.split(separator: "\n").first.map(String.init)
    }
}
