import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// A value delivered once by one thread and awaited, with a deadline, by
/// another: how a channel thread waits for the app's main thread.
final class OneShot<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is guarded by `mutex`.
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var value: Value?

    init() {
        pthread_mutex_init(&mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(&condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    /// Delivers the value; later deliveries are ignored.
    func fulfil(_ v: Value) {
        pthread_mutex_lock(&mutex)
        if value == nil {
            value = v
            pthread_cond_broadcast(&condition)
        }
        pthread_mutex_unlock(&mutex)
    }

    /// The value, or nil when `seconds` pass first (`.infinity`: no limit).
    func wait(seconds: Double) -> Value? {
        if seconds.isInfinite {
            pthread_mutex_lock(&mutex)
            defer { pthread_mutex_unlock(&mutex) }
            while value == nil { pthread_cond_wait(&condition, &mutex) }
            return value
        }
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let ns = Int(max(0, seconds) * 1e9) + deadline.tv_nsec
        deadline.tv_sec += ns / 1_000_000_000
        deadline.tv_nsec = ns % 1_000_000_000
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while value == nil {
            if pthread_cond_timedwait(&condition, &mutex, &deadline) == ETIMEDOUT { break }
        }
        return value
    }
}
