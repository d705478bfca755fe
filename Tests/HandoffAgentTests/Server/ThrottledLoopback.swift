// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase
@testable import HandoffContinuity
import HandoffTestSupport

/// A loopback slower than a test's deadlines: `body` runs on a thread of
/// its own in a network namespace of its own (unshare: anonymous, gone
/// with its last socket), whose `lo` sends at most `rate` (tc tbf). Every
/// engine made there, and every thread those start, talks over it; Unix
/// sockets (the agent's) are the file system's and work as anywhere.
/// Needs root and tc, as Tests/support/netns.py does.
enum ThrottledLoopback {
    static var available: Bool { geteuid() == 0 && access("/usr/sbin/tc", X_OK) == 0 && access("/usr/sbin/ip", X_OK) == 0 }

    static func run<T: Sendable>(rate: String, _ body: @escaping @Sendable () throws -> T) throws -> T {
        let result = Locked<Result<T, any Error>?>(nil)
        guard let thread = startJoinableThread(named: "test-netns", {
            result.withLock { $0 = Result { () throws -> T in
                // CLONE_NEWNET: this thread (and the threads and children it starts) only.
                guard let unshare = dlsym(nil, "unshare").map({ unsafeBitCast($0, to: (@convention(c) (Int32) -> Int32).self) }),
                      unshare(0x4000_0000) == 0 else { throw TestFailure("unshare(CLONE_NEWNET): \(String(cString: strerror(errno)))") }
                let setUp = "ip link set lo mtu 1500 up && tc qdisc add dev lo root tbf rate \(rate) burst 64kb latency 500ms"
                guard system(setUp) == 0 else { throw TestFailure("cannot throttle lo: \(setUp)") }
                return try body()
            } }
        }) else { throw TestFailure("no thread for the namespace") }
        pthread_join(thread, nil)
        guard let outcome = result.withLock({ $0 }) else { throw TestFailure("the namespace's thread returned nothing") }
        return try outcome.get()
    }
}
