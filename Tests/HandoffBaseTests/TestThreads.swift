// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// A value shared between a test and the threads it starts, behind a
/// pthread mutex (ThreadSanitizer sees it).
final class Guarded<Value>: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var stored: Value

    init(_ value: Value) {
        stored = value
        pthread_mutex_init(&mutex, nil)
    }

    deinit { pthread_mutex_destroy(&mutex) }

    func with<R>(_ body: (inout Value) -> R) -> R {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body(&stored)
    }

    var value: Value { with { $0 } }
}

/// A thread running `body`; `join` waits for it (the happens-before edge
/// the test's reads after it need).
final class TestThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private var thread = pthread_t()

    init(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        precondition(started == 0, "pthread_create failed")
    }

    func join() { pthread_join(thread, nil) }
}

/// Opened once, waited for with a bound: a pipe, so a wait never spins and
/// never outlives its bound. Only a signal: data goes through `Guarded`
/// or a join, which ThreadSanitizer sees.
final class Latch: @unchecked Sendable {
    private let fds: [Int32]

    init() {
        var fds: [Int32] = [-1, -1]
        precondition(clinux_pipe2(&fds, O_CLOEXEC) == 0, "pipe failed")
        self.fds = fds
    }

    deinit {
        close(fds[0])
        close(fds[1])
    }

    func open() {
        var one: UInt8 = 1
        _ = write(fds[1], &one, 1)
    }

    /// Whether it was opened within `seconds` (a safety bound, not a timing).
    func wait(seconds: Int32) -> Bool {
        var fd = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
        return poll(&fd, 1, seconds * 1000) == 1
    }
}

/// "/proc/PID/task/TID" of the calling thread.
func currentThreadPath() -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    let n = readlink("/proc/thread-self", &buffer, buffer.count - 1)
    precondition(n > 0, "readlink /proc/thread-self failed")
    return "/proc/" + String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Returns once the thread at `path` (currentThreadPath) sleeps (state S
/// in its stat: a reactor's loop thread sleeps only in poll), or after
/// 5000 checks 1 ms apart whatever its state (a safety bound: the test
/// then merely loses its power to tell a loop that needs a wake-up).
func waitUntilSleeping(_ path: String) {
    for _ in 0..<5000 {
        if threadState(path) == "S" { return }
        usleep(1000)
    }
}

private func threadState(_ path: String) -> Character? {
    let fd = open(path + "/stat", O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 512)
    let n = read(fd, &buffer, buffer.count)
    guard n > 0 else { return nil }
    let text = String(decoding: buffer[..<n], as: UTF8.self)
    // "TID (comm) S ...": the comm may hold spaces and parentheses.
    guard let close = text.lastIndex(of: ")") else { return nil }
    return text[close...].dropFirst(2).first
}
