// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Where the agent listens (docs/agent.md §3):
/// `$XDG_RUNTIME_DIR/handoff/agent.sock`, or `HANDOFF_AGENT_SOCKET` when set
/// (tests, a second agent). The directory is the user's own, mode 0700.
public enum AgentSocketPath {
    /// The socket's path, or nil when there is no runtime directory (then
    /// no agent can run for this session: apps embed their engine).
    public static func resolve(_ environment: [String: String] = ProcessEnvironment.current) -> String? {
        if let path = environment["HANDOFF_AGENT_SOCKET"], !path.isEmpty { return path }
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        return runtime + "/handoff/agent.sock"
    }

    /// The agent's side: creates the socket's directory (0700) when absent
    /// and refuses one that is a symbolic link, another user's or open to
    /// others, with a message saying what to do.
    public static func prepareDirectory(for socketPath: String) throws(HandoffError) {
        let directory = parent(of: socketPath)
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw HandoffError(.io, "cannot create \(directory): \(String(cString: strerror(errno)))")
        }
        try check(directory: directory, forAgent: true)
    }

    /// The app's side: the directory must be the user's own and no link;
    /// the agent's uid is checked again on the connection (SO_PEERCRED).
    public static func checkBeforeConnecting(_ socketPath: String) throws(HandoffError) {
        try check(directory: parent(of: socketPath), forAgent: false)
    }

    private static func check(directory: String, forAgent: Bool) throws(HandoffError) {
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            throw HandoffError(.connectionUnavailable, "no agent directory \(directory): \(String(cString: strerror(errno)))")
        }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            throw HandoffError(.permission, "\(directory) is a symbolic link: remove it (the agent creates the directory itself)")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw HandoffError(.permission, "\(directory) is not a directory: remove it")
        }
        guard info.st_uid == getuid() else {
            throw HandoffError(.permission, "\(directory) belongs to uid \(info.st_uid), not to this user: remove it")
        }
        if forAgent && info.st_mode & 0o077 != 0 {
            throw HandoffError(.permission, "\(directory) is open to other users: chmod 700 \(directory)")
        }
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
