// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The fuzz targets' inputs kept in the repository: Tests/fuzz/regressions
/// (what a fuzzer found, and hand-made attacks) and Tests/fuzz/corpus (seeds).
public enum FuzzCorpus {
    /// The input names in Tests/fuzz/regressions/<target>/, sorted.
    public static func names(_ target: String) -> [String] {
        RepositoryFiles.names(in: "Tests/fuzz/regressions/" + target)
    }

    /// One input of Tests/fuzz/regressions/<target>/.
    public static func read(_ target: String, _ name: String) throws(HandoffError) -> [UInt8] {
        try RepositoryFiles.read("Tests/fuzz/regressions/" + target + "/" + name)
    }

    /// One seed of Tests/fuzz/corpus/<target>/.
    public static func seed(_ target: String, _ name: String) throws(HandoffError) -> [UInt8] {
        try RepositoryFiles.read("Tests/fuzz/corpus/" + target + "/" + name)
    }

    /// Inputs a fuzzer found (libFuzzer names them crash-*, timeout-*,
    /// oom-*, slow-unit-*, leak-*) may be valid once the bug is fixed; the
    /// hand-made ones are attacks and must be refused.
    public static func foundByFuzzer(_ name: String) -> Bool {
        ["crash-", "timeout-", "oom-", "slow-unit-", "leak-"].contains { name.hasPrefix($0) }
    }
}
