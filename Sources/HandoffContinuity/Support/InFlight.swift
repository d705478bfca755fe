#if canImport(Glibc)
import Glibc
#endif

/// Counts background jobs still running and lets another thread wait, with
/// a deadline, until none is: how `ContinuityEngine.detach` lets the
/// confirmation of a continue reach the sender before the engine stops.
final class InFlight: @unchecked Sendable {
    // @unchecked: `count` is guarded by `mutex`.
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var count = 0

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

    /// A job starts.
    func begin() {
        pthread_mutex_lock(&mutex)
        count += 1
        pthread_mutex_unlock(&mutex)
    }

    /// A job ended (call once per `begin`).
    func end() {
        pthread_mutex_lock(&mutex)
        count -= 1
        if count <= 0 { pthread_cond_broadcast(&condition) }
        pthread_mutex_unlock(&mutex)
    }

    /// Waits until no job runs or `seconds` pass; true when none runs.
    @discardableResult
    func waitUntilIdle(seconds: Double) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let ns = Int(max(0, seconds) * 1e9) + deadline.tv_nsec
        deadline.tv_sec += ns / 1_000_000_000
        deadline.tv_nsec = ns % 1_000_000_000
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while count > 0 {
            if pthread_cond_timedwait(&condition, &mutex, &deadline) == ETIMEDOUT { break }
        }
        return count <= 0
    }
}
