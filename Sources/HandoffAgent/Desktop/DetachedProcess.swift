import CLinux
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Starts a program that outlives the agent and is not its child
/// (`clinux_spawn_detached`: double fork, new session, stdio on /dev/null,
/// default signal handling, no descriptor but 0–2). The agent reaps the
/// short-lived middle process before this returns, so no zombie is left;
/// the program itself is re-parented to the nearest subreaper or init.
///
/// The environment is the agent's own, unchanged: `DESKTOP_STARTUP_ID`
/// and `XDG_ACTIVATION_TOKEN` are neither set nor removed.
enum DetachedProcess {
    /// - Parameters:
    ///   - executable: absolute path of the file to run.
    ///   - arguments: argv, `arguments[0]` being the program's name.
    ///   - directory: working directory, or nil for the agent's.
    /// - Returns: the program's pid.
    /// - Throws: `.handoffFailed` naming the program and the system's reason.
    static func spawn(_ executable: String, _ arguments: [String], directory: String?) throws(HandoffError) -> pid_t {
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: Int32 = -1
        let status = argv.withUnsafeBufferPointer { args in
            directory.withOptionalCString { dir in
                clinux_spawn_detached(executable, args.baseAddress, environ, dir, &pid)
            }
        }
        guard status == 0 else {
            throw HandoffError(.handoffFailed, "cannot start \(executable)\(directory.map { " in \($0)" } ?? ""): \(String(cString: strerror(status)))")
        }
        return pid
    }
}

extension Optional where Wrapped == String {
    fileprivate func withOptionalCString<R>(_ body: (UnsafePointer<CChar>?) -> R) -> R {
        switch self {
        case .some(let text): text.withCString { body($0) }
        case .none: body(nil)
        }
    }
}
