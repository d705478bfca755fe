// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import HandoffTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A peer's words open nothing outside the folder they point into
/// (docs/documents.md §4 step 1): with openat2 and with the fallback.
@Suite struct DocumentSlotTests {
    /// A root with a real file, and beside it a folder "outside" whose
    /// secret hostile slots try to reach.
    static func layout(_ base: String) throws -> (root: String, outside: String) {
        let root = base + "/root", outside = base + "/outside"
        try DocumentTestFolders.write(root + "/notes/plan.odt", "plan")
        try DocumentTestFolders.write(outside + "/secret.txt", "secret")
        #expect(symlink(outside + "/secret.txt", root + "/notes/escape.txt") == 0)
        #expect(symlink("../../outside/secret.txt", root + "/notes/relative-escape.txt") == 0)
        #expect(symlink(outside, root + "/linked") == 0)
        #expect(symlink("/proc/self/root" + outside, root + "/magic") == 0)
        #expect(mkfifo(root + "/notes/pipe", 0o600) == 0)
        #expect(mkdir(root + "/notes/folder.odt", 0o755) == 0)
        return (root, outside)
    }

    @Test(arguments: [false, true])
    func hostileSlotsAreAbsent(stepwise: Bool) throws {
        try DocumentTestFolders.with { base in
            let (root, _) = try Self.layout(base)
            #expect(DocumentSlot(root: root, relative: "notes/plan.odt").facts(stepwise: stepwise)?.size == 4)
            for relative in ["notes/escape.txt", "notes/relative-escape.txt", "linked/secret.txt", "magic/secret.txt",
                             "notes/pipe", "notes/folder.odt", "notes/missing.odt", "notes/../../outside/secret.txt"] {
                let slot = DocumentSlot(root: root, relative: relative)
                #expect(slot.facts(stepwise: stepwise) == nil, "\(relative)")
                #expect(slot.openFile(stepwise: stepwise) == nil, "\(relative)")
            }
            // The file's folder: through a link out of the root, none.
            #expect(DocumentSlot(root: root, relative: "linked/new.txt").openDirectory(stepwise: stepwise) == nil)
            let fd = try #require(DocumentSlot(root: root, relative: "notes/new.txt").openDirectory(stepwise: stepwise))
            close(fd)
        }
    }

    /// A character device inside the root (made with mknod, as root) is
    /// never opened: it is looked at through an O_PATH descriptor first.
    @Test func aDeviceIsAbsent() throws {
        try DocumentTestFolders.with { base in
            guard mknod(base + "/null", S_IFCHR | 0o600, dev_t(1 << 8 | 3)) == 0 else { return }  // not root: nothing to test
            #expect(DocumentSlot(root: base, relative: "null").facts() == nil)
            #expect(DocumentSlot(root: base, relative: "null").facts(stepwise: true) == nil)
        }
    }

    @Test func slotParts() {
        let slot = DocumentSlot(root: "/home/a/", relative: "notes/2024/plan.odt")
        #expect(slot.path == "/home/a/notes/2024/plan.odt")
        #expect(slot.directory == "/home/a/notes/2024")
        #expect(slot.relativeDirectory == "notes/2024")
        #expect(slot.name == "plan.odt")
        #expect(DocumentSlot(root: "/h", relative: "top.txt").relativeDirectory == nil)
    }
}

/// The digests' cache: a file already hashed costs a stat; a change of
/// content, time or inode is seen (docs/documents.md §4 step 2).
@Suite struct DocumentDigestTests {
    static func facts(_ cache: DocumentDigestCache, _ path: String) -> DocumentFacts? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return cache.facts(ofOpenFile: fd)
    }

    @Test func hashedOnceUntilChanged() throws {
        try DocumentTestFolders.with { base in
            let cache = DocumentDigestCache(capacity: 8)
            let path = base + "/plan.odt"
            try DocumentTestFolders.write(path, "version one")
            let first = try #require(Self.facts(cache, path))
            #expect(first.size == 11)
            #expect(first.sha256 == Crypto.sha256(Array("version one".utf8)))
            for _ in 0..<5 { #expect(Self.facts(cache, path) == first) }
            #expect(cache.hashes == 1)

            // Same size, the modification time put back: the change time
            // still tells.
            var info = stat()
            #expect(stat(path, &info) == 0)
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            #expect(pwrite(fd, "VERSION", 7, 0) == 7)
            var times = [info.st_atim, info.st_mtim]
            #expect(futimens(fd, &times) == 0)
            close(fd)
            let second = try #require(Self.facts(cache, path))
            #expect(second.sha256 == Crypto.sha256(Array("VERSION one".utf8)))
            #expect(cache.hashes == 2)

            // Replaced by a rename (a new inode).
            try DocumentTestFolders.write(path, "version three")
            #expect(Self.facts(cache, path)?.size == 13)
            #expect(cache.hashes == 3)
        }
    }

    @Test func bounded() throws {
        try DocumentTestFolders.with { base in
            let cache = DocumentDigestCache(capacity: 2)
            for n in 0..<5 {
                try DocumentTestFolders.write(base + "/f\(n)", "file \(n)")
                _ = Self.facts(cache, base + "/f\(n)")
            }
            #expect(cache.count == 2)
            // The newest are kept, the oldest went.
            _ = Self.facts(cache, base + "/f4")
            #expect(cache.hashes == 5)
            _ = Self.facts(cache, base + "/f0")
            #expect(cache.hashes == 6)
        }
    }

    @Test func notARegularFile() throws {
        try DocumentTestFolders.with { base in
            let fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            defer { close(fd) }
            #expect(DocumentDigestCache(capacity: 1).facts(ofOpenFile: fd) == nil)
        }
    }
}
