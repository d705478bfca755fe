// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Testing
import HandoffBase
import HandoffModel
import HandoffTestSupport
@testable import HandoffContinuity

/// A folder beside the person's file that this device cannot write in (a
/// read-only mount here; root writes through file modes, so the test uses
/// a read-only bind mount in a mount namespace of the test's own thread):
/// the copy goes to downloads instead of failing.
@Suite struct BroughtCopyFallbackTests {
    // unshare(2) and mount(2), which Swift's Glibc module does not import
    // (they need _GNU_SOURCE), looked up in the C library.
    typealias Unshare = @convention(c) (Int32) -> Int32
    typealias Mount = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt, UnsafeRawPointer?) -> Int32
    static let newMountNamespace: Int32 = 0x0002_0000  // CLONE_NEWNS
    static let (rdonly, remount, bind, rec, privateMount): (UInt, UInt, UInt, UInt, UInt) = (1, 32, 4096, 16384, 1 << 18)

    /// Runs `body` on a thread of its own whose mount namespace is private
    /// (`unshare(CLONE_NEWNS)` acts on the calling thread only), with
    /// `folder` bind-mounted read-only on itself there; the namespace, and
    /// the mount, go with the thread. nil when no such mount can be made.
    static func withReadOnly<T: Sendable>(_ folder: String, _ body: @escaping @Sendable () -> T) throws -> T? {
        guard let libc = dlopen(nil, RTLD_NOW), let u = dlsym(libc, "unshare"), let m = dlsym(libc, "mount") else { return nil }
        let unshare = unsafeBitCast(u, to: Unshare.self)
        let mount = unsafeBitCast(m, to: Mount.self)
        let result = OneShot<T?>()
        let started = startDetachedThread(named: "test-ro-mount") {
            guard unshare(newMountNamespace) == 0,
                  mount(nil, "/", nil, rec | privateMount, nil) == 0,
                  mount(folder, folder, nil, bind, nil) == 0,
                  mount(nil, folder, nil, bind | remount | rdonly, nil) == 0 else {
                _ = result.fulfil(nil)
                return
            }
            _ = result.fulfil(body())
        }
        #expect(started)
        return try #require(result.wait(seconds: 60))
    }

    @Test func aFolderThatCannotBeWrittenSendsTheCopyToDownloads() throws {
        try DocumentTestFolders.with { home in
            try DocumentTestFolders.write(home + "/notes/plan.txt", "the person's")
            let places = DocumentPlaces(home: home)
            let slot = DocumentSlot(root: home, relative: "notes/plan.txt")
            let outcome: (String?, Int32, String?)? = try Self.withReadOnly(home + "/notes") {
                // The folder really refuses a file here.
                let probe = open(home + "/notes/probe", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                let refusal = errno
                if probe >= 0 { close(probe) }
                do {
                    let copy = try BroughtCopy.start(for: slot, name: "plan.txt", device: "Desk", places: places)
                    try BroughtCopyTests.write(copy, "the sender's")
                    return (try copy.commit(), refusal, nil)
                } catch {
                    return (nil, refusal, "\(error)")
                }
            }
            let (path, refusal, failure) = try #require(outcome, "no private read-only mount could be made")
            #expect(refusal == EROFS)
            #expect(failure == nil, "\(failure ?? "")")
            #expect(path == home + "/Downloads/Handoff/plan (from Desk).txt")
            #expect(DocumentTestFolders.read(home + "/Downloads/Handoff/plan (from Desk).txt") == "the sender's")
            #expect(DocumentTestFolders.names(home + "/notes") == ["plan.txt"])
            #expect(DocumentTestFolders.read(home + "/notes/plan.txt") == "the person's")
        }
    }
}
