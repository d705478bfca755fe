// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
import HandoffTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Waiting for a sync that is catching up (docs/documents.md §4 step 3):
/// woken by the file moved into place, bounded by its deadline, and
/// looking at the file only when an event names it (counted).
@Suite struct DocumentSyncWaitTests {
    static func expected(_ text: String) -> DocumentFacts {
        DocumentFacts(size: UInt64(text.utf8.count), modified: Timestamp(timeIntervalSince1970: 0), sha256: Crypto.sha256(Array(text.utf8)))
    }

    /// Runs the wait on a thread of its own; `sync` plays the syncing
    /// program meanwhile.
    static func waitWhile(_ slot: DocumentSlot, _ facts: DocumentFacts, seconds: Double,
                          sync: () throws -> Void) throws -> (matched: Bool, checks: Int) {
        let result = Locked<(matched: Bool, checks: Int)?>(nil)
        let deadline = monotonicSeconds() + seconds
        let thread = startJoinableThread(named: "test-sync-wait") {
            let outcome = DocumentSyncWait.waitCounting(for: slot, toMatch: facts, until: deadline, cancel: nil)
            result.withLock { $0 = outcome }
        }!
        var failure: (any Error)?
        do { try sync() } catch { failure = error }
        pthread_join(thread, nil)  // the wait ends by its deadline at the latest
        if let failure { throw failure }
        return result.withLock { $0! }
    }

    @Test func wokenByARenameIntoPlace() throws {
        try DocumentTestFolders.with { base in
            DocumentTestFolders.makeFolders(base + "/Sync/notes")
            try DocumentTestFolders.write(base + "/Sync/notes/plan.odt", "old")
            let slot = DocumentSlot(root: base + "/Sync", relative: "notes/plan.odt")
            let outcome = try Self.waitWhile(slot, Self.expected("new"), seconds: 60) {
                // What Syncthing does: temporary files, written, then renamed over.
                for n in 0..<20 { try DocumentTestFolders.write(base + "/Sync/notes/.syncthing.other\(n).tmp", "noise") }
                try DocumentTestFolders.write(base + "/Sync/notes/.syncthing.plan.odt.tmp", "new")
                #expect(rename(base + "/Sync/notes/.syncthing.plan.odt.tmp", base + "/Sync/notes/plan.odt") == 0)
            }
            #expect(outcome.matched)
            // The first look, and one for the rename (TestFiles' own
            // renames name other files): never one per event.
            #expect(outcome.checks <= 2)
        }
    }

    /// The file's folder does not exist yet: the wait follows it as it
    /// appears.
    @Test func theFolderAppearsToo() throws {
        try DocumentTestFolders.with { base in
            DocumentTestFolders.makeFolders(base + "/Sync")
            let slot = DocumentSlot(root: base + "/Sync", relative: "a/b/plan.odt")
            let outcome = try Self.waitWhile(slot, Self.expected("new"), seconds: 60) {
                DocumentTestFolders.makeFolders(base + "/Sync/a/b")
                try DocumentTestFolders.write(base + "/Sync/a/b/plan.odt", "new")
            }
            #expect(outcome.matched)
            #expect(outcome.checks <= 4)
        }
    }

    /// Nothing happens: one look, then the deadline. A loop that polled
    /// would look again and again.
    @Test func boundedByTheDeadline() throws {
        try DocumentTestFolders.with { base in
            try DocumentTestFolders.write(base + "/Sync/plan.odt", "old")
            let slot = DocumentSlot(root: base + "/Sync", relative: "plan.odt")
            let outcome = DocumentSyncWait.waitCounting(for: slot, toMatch: Self.expected("new"), until: monotonicSeconds() + 0.3, cancel: nil)
            #expect(!outcome.matched)
            #expect(outcome.checks == 1)
            // Already there: one look.
            #expect(DocumentSyncWait.waitCounting(for: slot, toMatch: Self.expected("old"), until: monotonicSeconds() + 30, cancel: nil) == (true, 1))
        }
    }

    @Test func cancelled() throws {
        try DocumentTestFolders.with { base in
            try DocumentTestFolders.write(base + "/plan.odt", "old")
            let cancel = try WakePipe()
            cancel.signal()
            let slot = DocumentSlot(root: base, relative: "plan.odt")
            #expect(!DocumentSyncWait.wait(for: slot, toMatch: Self.expected("new"), until: monotonicSeconds() + 60, cancel: cancel.fd))
        }
    }
}
