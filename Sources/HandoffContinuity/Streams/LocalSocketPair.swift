import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The two ends of a continuation stream on this device: the host's
/// (handed to the app as a `ContinuationStream`) and the library's (which
/// the pump carries to and from the channel). A Unix stream socket pair,
/// so EOF, half-close and poll() behave as on any socket, and the kernel
/// bounds what one side can queue.
struct LocalSocketPair {
    let host: ContinuationStream
    let library: Int32

    init() throws(HandoffError) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw HandoffError(.io, "cannot create a socket pair for a continuation stream (\(errnoText(errno)))")
        }
        // Room for a few of the pump's batches, so each wake-up moves a lot.
        var size: Int32 = 512 * 1024
        for fd in fds {
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        host = ContinuationStream(owning: fds[0])
        library = fds[1]
    }
}
