// SPDX-License-Identifier: MIT OR Apache-2.0
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
/// The environment is the agent's own, less any `XDG_ACTIVATION_TOKEN` and
/// `DESKTOP_STARTUP_ID` it inherited, with both set to the activation token
/// of the person's click when there is one (`ActivationToken`).
enum DetachedProcess {
    /// - Parameters:
    ///   - executable: absolute path of the file to run.
    ///   - arguments: argv, `arguments[0]` being the program's name.
    ///   - directory: working directory, or nil for the agent's.
    ///   - activationToken: the token to hand on, if any.
    /// - Returns: the program's pid.
    /// - Throws: `.handoffFailed` naming the program and the system's reason.
    static func spawn(_ executable: String, _ arguments: [String], directory: String?,
                      activationToken: String? = nil) throws(HandoffError) -> pid_t {
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] =
            ActivationToken.environment(currentEnvironment(), token: activationToken).map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: Int32 = -1
        let status = argv.withUnsafeBufferPointer { args in
            envp.withUnsafeBufferPointer { env in
                directory.withOptionalCString { dir in
                    clinux_spawn_detached(executable, args.baseAddress, env.baseAddress, dir, &pid)
                }
            }
        }
        guard status == 0 else {
            throw HandoffError(.handoffFailed, "cannot start \(executable)\(directory.map { " in \($0)" } ?? ""): \(String(cString: strerror(status)))")
        }
        return pid
    }

    /// The agent's environment, "NAME=value" entries (read on the loop
    /// thread; nothing in the agent changes it after start).
    static func currentEnvironment() -> [String] {
        var out: [String] = []
        let list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        guard let list else { return out }
        var index = 0
        while let pointer = list[index] {
            out.append(String(cString: pointer))
            index += 1
        }
        return out
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
