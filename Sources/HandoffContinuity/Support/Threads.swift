// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// Starts a joinable pthread running `body`: the library's I/O threads
/// (Foundation's Thread is not in FoundationEssentials). Nil when the
/// system refuses a thread. `name` (at most 15 bytes are kept) is what
/// `ps -L`, `top -H` and /proc show for it: "hoff-" and what it does.
func startJoinableThread(named name: String? = nil, _ body: @escaping @Sendable () -> Void) -> pthread_t? {
    final class Body {
        let name: String?
        let run: @Sendable () -> Void
        init(_ n: String?, _ r: @escaping @Sendable () -> Void) { name = n; run = r }
    }
    let context = Unmanaged.passRetained(Body(name, body)).toOpaque()
    var thread = pthread_t()
    guard pthread_create(&thread, nil, { raw in
        let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
        if let name = body.name { clinux_name_thread(name) }
        body.run()
        releaseThreadState()
        return nil
    }, context) == 0 else {
        Unmanaged<Body>.fromOpaque(context).release()
        return nil
    }
    return thread
}

/// Frees what OpenSSL keeps for the calling thread (its random generators,
/// its error queue) now rather than in the thread's exit handler: every
/// library thread does it when its body ends, and the waits that let an
/// owner stop (`ThreadGroup`, `WorkerPool.stop`) begin after it. Harmless
/// to repeat; OpenSSL makes new state if the thread uses it again.
func releaseThreadState() {
    OPENSSL_thread_stop()
}

/// Starts a detached pthread running `body`; false when the system refuses.
/// Public for the `handoff` tool, whose blocking probes run the same way.
@discardableResult
public func startDetachedThread(named name: String? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
    guard let thread = startJoinableThread(named: name, body) else { return false }
    pthread_detach(thread)
    return true
}

