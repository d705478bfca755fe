#if canImport(Glibc)
import Glibc
#endif

/// Waits for a number of background jobs to end.
final class InFlightCounter: @unchecked Sendable {
    // @unchecked: `count` is guarded by `mutex`.
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var count = 0

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    func begin() {
        pthread_mutex_lock(&mutex)
        count += 1
        pthread_mutex_unlock(&mutex)
    }

    func end() {
        pthread_mutex_lock(&mutex)
        count -= 1
        pthread_cond_broadcast(&condition)
        pthread_mutex_unlock(&mutex)
    }

    /// Returns once every job ended (each is bounded by its own timeouts).
    func wait() {
        pthread_mutex_lock(&mutex)
        while count > 0 { pthread_cond_wait(&condition, &mutex) }
        pthread_mutex_unlock(&mutex)
    }
}
