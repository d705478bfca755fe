// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffTestSupport

/// A folder under $TMPDIR (or /tmp) that a test fills with files and that
/// is deleted, with everything in it, when the test lets go of it.
final class TemporaryTree {
    let root: String

    /// A fresh folder under `parent` (created when missing), else under
    /// $TMPDIR or /tmp.
    init(_ name: String = "handoff-agent-test", under parent: String? = nil) {
        if let parent {
            var prefix = ""
            for part in parent.split(separator: "/") {
                prefix += "/" + part
                _ = mkdir(prefix, 0o755)
            }
        }
        let base = parent ?? getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/\(name)-\(getpid())-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed: \(String(cString: strerror(errno)))")
        root = String(cString: made!)
    }

    deinit { Self.removeAll(root) }

    /// `root/relative`.
    func path(_ relative: String) -> String { root + "/" + relative }

    /// Writes a file (making its folders), mode 0644 or as given.
    @discardableResult
    func write(_ relative: String, _ text: String, mode: mode_t = 0o644) -> String {
        write(relative, Array(text.utf8), mode: mode)
    }

    /// Through a temporary file renamed into place (`TestFiles.write`):
    /// a script is never run half written.
    @discardableResult
    func write(_ relative: String, _ bytes: [UInt8], mode: mode_t = 0o644) -> String {
        let full = path(relative)
        makeFolders(String(full[..<full.lastIndex(of: "/")!]))
        do { try TestFiles.write(full, bytes, mode: mode) } catch { preconditionFailure(error.message) }
        return full
    }

    func remove(_ relative: String) { unlink(path(relative)) }

    func exists(_ relative: String) -> Bool { access(path(relative), F_OK) == 0 }

    func read(_ relative: String) -> String? {
        guard let file = fopen(path(relative), "re") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func makeFolders(_ full: String) {
        var current = ""
        for part in full.split(separator: "/") {
            current += "/" + part
            mkdir(current, 0o755)
        }
    }

    private static func removeAll(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFDIR, let dir = opendir(path) {
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(dir)
            for name in names { removeAll(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}

/// Waits for a condition, checking every 10 ms, for at most `seconds`
/// (generous: the machine is shared). Returns whether it came true.
func eventually(within seconds: Double = 30, _ condition: () -> Bool) -> Bool {
    var start = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    while true {
        if condition() { return true }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        if Double(now.tv_sec - start.tv_sec) + Double(now.tv_nsec - start.tv_nsec) / 1e9 > seconds { return false }
        usleep(10_000)
    }
}
