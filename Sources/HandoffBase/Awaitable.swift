// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value behind a pthread mutex, with a condition on CLOCK_MONOTONIC so
/// one thread can wait, with a deadline, until another has changed it:
/// the one primitive under the library's one-shot results, gates and
/// in-flight counters. pthread, not Synchronization, for the reason given
/// on `Locked`.
public final class Awaitable<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched with `mutex` held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Changes the value under the lock and wakes every waiter.
    @discardableResult
    public func update<R>(_ body: (inout Value) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return body(&value)
    }

    /// Waits until `ready(value)` holds or `seconds` pass (`.infinity`: no
    /// limit), then runs `body` under the same lock with the value and
    /// whether it became ready; what `body` changes wakes other waiters.
    public func wait<R>(until ready: (Value) -> Bool, seconds: Double,
                        then body: (inout Value, Bool) -> R) -> R {
        var deadline = timespec()
        if seconds.isFinite {
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            let ns = Int(max(0, seconds) * 1e9) + deadline.tv_nsec
            deadline.tv_sec += ns / 1_000_000_000
            deadline.tv_nsec = ns % 1_000_000_000
        }
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        while !ready(value) {
            if seconds.isFinite {
                if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { break }
            } else {
                pthread_cond_wait(condition, mutex)
            }
        }
        return body(&value, ready(value))
    }
}
