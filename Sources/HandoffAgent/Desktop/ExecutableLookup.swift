// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Finds the program an `Exec` or `TryExec` names: an absolute path as is,
/// a bare name (no `/`) in the search path; a relative path with a `/`
/// (`./app`, `bin/app`) is refused, since it would depend on the agent's
/// working directory.
public enum ExecutableLookup {
    /// The path of a regular, executable file, or nil.
    public static func find(_ program: String, in searchPath: [String]) -> String? {
        if program.hasPrefix("/") { return isExecutable(program) ? program : nil }
        guard !program.isEmpty, !program.contains("/") else { return nil }
        for directory in searchPath {
            let candidate = directory.hasSuffix("/") ? directory + program : directory + "/" + program
            if isExecutable(candidate) { return candidate }
        }
        return nil
    }

    static func isExecutable(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        return access(path, X_OK) == 0
    }
}
