// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffModel
import HandoffTestSupport
import Testing
@testable import HandoffAgent

/// Replays Tests/fuzz/regressions/desktop-entry (hand-made hostile files,
/// written by Tests/fuzz/tools/seeds.swift, and anything the fuzzer finds)
/// and the seed corpus through what the fuzz target calls. Each input gives
/// values or a thrown error, never a trap; the hand-made ones are refused
/// (except the three that only cost work).
@Suite struct DesktopEntryFuzzRegressionTests {
    static func names(_ folder: String) -> [String] {
        RepositoryFiles.names(in: "Tests/fuzz/\(folder)/desktop-entry")
    }

    static func read(_ folder: String, _ name: String) throws -> [UInt8] {
        try RepositoryFiles.read("Tests/fuzz/\(folder)/desktop-entry/\(name)")
    }

    /// Everything the fuzz target does with a parsed entry.
    static func exercise(_ entry: DesktopEntry) {
        for group in entry.groupNames {
            for key in entry.keys(in: group) {
                _ = try? entry.strings(key, in: group)
                _ = try? entry.boolean(key, in: group)
                guard let value = try? entry.string(key, in: group) else { continue }
                _ = try? ExecCommandLine(value)
                _ = try? WebOpener.check(value)
            }
        }
    }

    static let accepted: Set<String> = ["escapes-60k", "semicolons-60k", "quotes-60k", "percent-60k"]

    @Test(arguments: names("regressions"))
    func regression(_ name: String) throws {
        let bytes = try Self.read("regressions", name)
        do {
            let entry = try DesktopEntry(bytes: bytes, source: name)
            let foundByFuzzer = ["crash-", "timeout-", "oom-", "slow-unit-"].contains { name.hasPrefix($0) }
            #expect(Self.accepted.contains(name) || foundByFuzzer, "\(name) was accepted")
            Self.exercise(entry)
        } catch {
            #expect(error.code == .malformedData && error.message.hasPrefix(name + ":"), "\(name): \(error)")
        }
    }

    @Test func hostileValuesAreRefusedWhenRead() throws {
        let escapes = try DesktopEntry(bytes: Self.read("regressions", "escapes-60k"), source: "e")
        #expect(throws: HandoffError.self) { try ExecCommandLine(escapes.string("Exec")!) }
        let percent = try DesktopEntry(bytes: Self.read("regressions", "percent-60k"), source: "p")
        #expect(throws: HandoffError.self) { try ExecCommandLine(percent.string("Exec")!) }
        let quotes = try DesktopEntry(bytes: Self.read("regressions", "quotes-60k"), source: "q")
        #expect(try ExecCommandLine(quotes.string("Exec")!).arguments.count == 20_001)
        let semicolons = try DesktopEntry(bytes: Self.read("regressions", "semicolons-60k"), source: "s")
        #expect(try semicolons.strings("X-Handoff-ActivityTypes")?.count == 60_000)
    }

    @Test(arguments: names("corpus"))
    func seed(_ name: String) throws {
        let entry = try DesktopEntry(bytes: Self.read("corpus", name), source: name)
        Self.exercise(entry)
        #expect(try entry.string("Type") == "Application")
    }

    @Test func theCorporaAreThere() {
        #expect(Self.names("regressions").count >= 12)
        #expect(Self.names("corpus").count >= 3)
    }
}
