// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Runs a read-only system tool (nft, iptables) and captures what it
/// prints, with a time limit. Never through a shell.
struct ExternalCommand {
    var status: Int32
    var output: String

    /// Searches PATH, then the sbin folders (often not on a user's PATH).
    static func find(_ name: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        for folder in folders where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs `executable` with `arguments`; stdout and stderr together, at
    /// most 1 MiB. nil when it cannot be started; killed after `timeout` s.
    static func run(_ executable: String, _ arguments: [String], timeout: Double = 3) -> ExternalCommand? {
        // A plain environment: the C locale, so messages are the ones we parse.
        let run = BoundedRun.run(executable, arguments, environment: ["LC_ALL=C", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"],
                                 timeout: timeout, limit: 1 << 20)
        guard case .success(let done) = run else { return nil }
        return ExternalCommand(status: done.status, output: String(decoding: done.output, as: UTF8.self))
    }
}
