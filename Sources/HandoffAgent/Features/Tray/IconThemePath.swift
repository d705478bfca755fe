// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Where the tray's icons are installed: <prefix>/share/icons beside the
/// running `handoff` (<prefix>/bin/handoff), so a host finds them when the
/// prefix (e.g. /usr/local, ~/.local) is not in its theme path.
enum IconThemePath {
    static func installed(executable: String? = currentExecutable()) -> String {
        guard let executable, let bin = executable.lastIndex(of: "/") else { return "" }
        let binDirectory = executable[..<bin]
        guard let prefixEnd = binDirectory.lastIndex(of: "/") else { return "" }
        return String(binDirectory[..<prefixEnd]) + "/share/icons"
    }

    static func currentExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
