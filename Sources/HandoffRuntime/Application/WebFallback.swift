// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Opens a web page in the person's browser: `xdg-open URL`, the desktop's
/// standard, when it is installed; otherwise nothing (and says so).
public enum WebFallback {
    /// Starts xdg-open without waiting for it; a thread reaps it.
    /// - Returns: false when xdg-open is not installed or cannot start.
    @discardableResult
    public static func open(_ url: URLReference) -> Bool {
        let scheme = url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else { return false }
        guard let tool = findInPath("xdg-open") else { return false }
        var pid: pid_t = 0
        let args = [tool, url.absoluteString]
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        guard posix_spawn(&pid, tool, nil, nil, &argv, environ) == 0 else { return false }
        Reaper.reap(pid)
        return true
    }

    static func findInPath(_ name: String) -> String? {
        guard let path = getenv("PATH") else { return nil }
        for dir in String(cString: path).split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}

/// Waits for child processes on a thread of their own so none is left a
/// zombie.
enum Reaper {
    static func reap(_ pid: pid_t) {
        var thread = pthread_t()
        let box = UnsafeMutablePointer<pid_t>.allocate(capacity: 1)
        box.pointee = pid
        if pthread_create(&thread, nil, { raw in
            let p = raw!.assumingMemoryBound(to: pid_t.self)
            var status: Int32 = 0
            _ = waitpid(p.pointee, &status, 0)
            p.deallocate()
            return nil
        }, box) == 0 {
            pthread_detach(thread)
        } else {
            box.deallocate()
        }
    }
}
