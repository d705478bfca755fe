// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The Flatpak app a connected process is, read from outside its sandbox:
/// Flatpak binds `/.flatpak-info` (a key file, `[Application] name=ID`)
/// into every sandbox, read-only, and the process's root is visible as
/// `/proc/PID/root`. The pid is the connection's SO_PEERCRED one.
enum FlatpakApp {
    /// `.flatpak-info` is small; a larger one is not Flatpak's.
    static let maxInfoSize = 65_536

    /// The app ID of process `pid`; `.invalidState` when it is not in a
    /// Flatpak sandbox (no `/.flatpak-info` in its root) or the file names
    /// no valid ID.
    static func id(ofProcess pid: Int32, proc: String = "/proc") -> Result<String, HandoffError> {
        let path = "\(proc)/\(pid)/root/.flatpak-info"
        // O_NONBLOCK: the root is the app's, and a FIFO there would hold
        // the agent's loop in open(2); only a regular file is read.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        var st = stat()
        guard fd >= 0, fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            if fd >= 0 { close(fd) }
            return .failure(HandoffError(.invalidState,
                "the app (pid \(pid)) is not in a Flatpak sandbox as the agent sees it (no /.flatpak-info in its root): outside a sandbox it opens the document's own path"))
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= maxInfoSize {
            let n = read(fd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[0..<n]
        }
        guard bytes.count <= maxInfoSize, let text = String(validating: bytes, as: UTF8.self), let id = applicationName(text) else {
            return .failure(HandoffError(.invalidState, "the app's /.flatpak-info (pid \(pid)) names no application ID"))
        }
        return .success(id)
    }

    /// `name=` of the `[Application]` group, if it is a valid app ID.
    static func applicationName(_ info: String) -> String? {
        var inApplication = false
        for raw in info.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = raw.trimmingCharacters(in: " \t\r")
            if line.hasPrefix("[") {
                inApplication = line == "[Application]"
            } else if inApplication, line.hasPrefix("name=") {
                let id = String(line.dropFirst(5))
                return isValidID(id) ? id : nil
            }
        }
        return nil
    }

    /// Flatpak's rule: 2+ dot-separated elements of `[A-Za-z0-9_-]`, not
    /// starting with a digit, at most 255 bytes.
    static func isValidID(_ id: String) -> Bool {
        let parts = id.split(separator: ".", omittingEmptySubsequences: false)
        guard id.utf8.count <= 255, parts.count >= 2 else { return false }
        return parts.allSatisfy { part in
            guard let first = part.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
            return part.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }
        }
    }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self[...]
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}
