// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value behind a pthread mutex: the library's one lock type.
///
/// Not Synchronization's `Mutex`: on Linux that one waits on futexes
/// directly, which ThreadSanitizer cannot see, so every cross-thread use
/// reads as a race and `make test-tsan` would be noise. pthread mutexes are
/// understood by TSan, valgrind's helgrind and every debugger.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched with `mutex` held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock. Never call out to host
    /// code from `body`.
    public func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
