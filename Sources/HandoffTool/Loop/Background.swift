#if canImport(Glibc)
import Glibc
#endif

/// Runs blocking work (a TLS handshake, a TCP probe) on a thread of its
/// own, so the main loop never blocks on the network.
enum Background {
    /// Starts `body` on a detached thread; false if the system refused one.
    @discardableResult
    static func run(_ body: @escaping @Sendable () -> Void) -> Bool {
        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, context) == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
