// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Testing
import CLinux
import HandoffBase
import HandoffTestSupport
@testable import HandoffContinuity

/// openat2 refused by a seccomp filter (EPERM, as container runtimes'
/// default profiles answer a call they do not know) counts as missing,
/// like ENOSYS: the stricter fallback opens, component by component with
/// O_NOFOLLOW, refusing even a link that stays inside. Any other failure
/// of openat2 is the answer.
@Suite struct BeneathTests {
    final class Tree {
        let root: String
        init() throws {
            var template = Array("/var/tmp/handoff-beneath-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp") }
            root = String(cString: made)
            mkdir(root + "/notes", 0o700)
            let fd = open(root + "/notes/plan.txt", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            close(fd)
            symlink("notes", root + "/inside")  // a link that stays beneath the root
        }
        deinit { _ = system("rm -rf '\(root)'") }

        /// Opens `relative` beneath the root with `openat2` standing in.
        func opens(_ relative: String, _ openat2: Beneath.Openat2? = nil) -> (opened: Bool, errno: Int32) {
            let rootFD = Beneath.openRoot(root)
            defer { close(rootFD) }
            let fd = Beneath.open(relative, in: rootFD, flags: CLINUX_O_PATH, openat2: openat2)
            let code = errno
            if fd >= 0 { close(fd) }
            return (fd >= 0, code)
        }
    }

    static func failing(_ code: Int32, calls: Locked<Int>) -> Beneath.Openat2 {
        { _, _, _, _ in
            calls.withLock { $0 += 1 }
            errno = code
            return -1
        }
    }

    @Test(arguments: [EPERM, ENOSYS])
    func openat2RefusedFallsBackToTheStricterWay(_ code: Int32) throws {
        let tree = try Tree()
        let calls = Locked(0)
        // The real call follows a link that stays inside: the fallback does not.
        #expect(tree.opens("inside/plan.txt").opened)
        #expect(tree.opens("notes/plan.txt", Self.failing(code, calls: calls)).opened)
        let linked = tree.opens("inside/plan.txt", Self.failing(code, calls: calls))
        #expect(!linked.opened && (linked.errno == ELOOP || linked.errno == ENOTDIR), "\(linked)")
        #expect(calls.withLock { $0 } == 2)
        // An injected refusal is not remembered for the real calls.
        #expect(!Beneath.kernelLacksOpenat2)
    }

    @Test func anotherFailureOfOpenat2IsTheAnswer() throws {
        let tree = try Tree()
        let calls = Locked(0)
        let refused = tree.opens("notes/plan.txt", Self.failing(EACCES, calls: calls))
        #expect(!refused.opened && refused.errno == EACCES, "\(refused)")
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func everyErrnoThatMeansUnavailable() {
        #expect(Beneath.meansUnavailable(ENOSYS))
        #expect(Beneath.meansUnavailable(EPERM))
        for code in [EACCES, ELOOP, EXDEV, ENOENT, EAGAIN] { #expect(!Beneath.meansUnavailable(code)) }
    }
}
