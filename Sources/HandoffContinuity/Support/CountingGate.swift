#if canImport(Glibc)
import Glibc
#endif

/// Lets at most `limit` threads between `enter` and `leave` at once; the
/// others wait in `enter` (a counting semaphore on a pthread condition).
final class CountingGate: @unchecked Sendable {
    // @unchecked: `inside` is guarded by `mutex`.
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var inside = 0
    private let limit: Int

    init(limit: Int) {
        precondition(limit >= 1)
        self.limit = limit
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    func enter() {
        pthread_mutex_lock(&mutex)
        while inside >= limit { pthread_cond_wait(&condition, &mutex) }
        inside += 1
        pthread_mutex_unlock(&mutex)
    }

    func leave() {
        pthread_mutex_lock(&mutex)
        inside -= 1
        pthread_cond_signal(&condition)
        pthread_mutex_unlock(&mutex)
    }
}
