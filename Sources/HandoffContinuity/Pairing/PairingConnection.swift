// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// One non-blocking TCP connection of a pairing, carrying frames. Reads
/// take only the bytes of the frame under way, and refuse a length that is
/// not the exact size (or range) of a pairing message of its type from
/// the 5-byte header, before reading or allocating the payload.
final class PairingConnection {
    let fd: Int32
    /// The peer's address, for messages and per-source shares.
    let peer: String
    /// Bytes received so far, over all frames.
    private(set) var received = 0
    private var pending: [UInt8] = []

    init(fd: Int32, peer: String) {
        self.fd = fd
        self.peer = peer
    }

    deinit { close(fd) }

    /// Reads what has arrived; a complete frame, or nil when more is
    /// needed. Throws `.malformedData` for a length outside the message's
    /// size, `.connectionUnavailable` when the peer closed or reset.
    func readFrame() throws(HandoffError) -> Frame? {
        while true {
            let need: Int
            if pending.count < 5 {
                need = 5 - pending.count
            } else {
                let n = Int(pending[0]) << 24 | Int(pending[1]) << 16 | Int(pending[2]) << 8 | Int(pending[3])
                guard n <= PairingLimits.maxFrameSize, let lengths = PairingMessage.allowedLengths(type: pending[4]),
                      lengths.contains(n) else {
                    throw HandoffError(.malformedData, "\(peer) sent something that is no pairing message")
                }
                need = 4 + n - pending.count
                if need == 0 {
                    let frame = Frame(type: pending[4], payload: Array(pending[5...]))
                    pending = []
                    return frame
                }
            }
            var chunk = [UInt8](repeating: 0, count: need)
            let got = recv(fd, &chunk, need, Int32(MSG_DONTWAIT))
            if got < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
                throw HandoffError(.connectionUnavailable, "the connection to \(peer) failed (\(errnoText(errno)))")
            }
            if got == 0 {
                throw HandoffError(.connectionUnavailable, "\(peer) closed the connection before the pairing ended")
            }
            received += got
            pending += chunk[0..<got]
        }
    }

    /// Sends `frame` whole before `deadline`.
    func send(_ frame: Frame, until deadline: Deadline) throws(HandoffError) {
        let bytes = frame.encoded()
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            if n > 0 {
                offset += n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            guard n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) else {
                throw HandoffError(.connectionUnavailable, "the connection to \(peer) failed while sending (\(errnoText(errno)))")
            }
            guard deadline.pollTimeout != nil else {
                throw HandoffError(.timedOut, "\(peer) did not take a pairing message in time")
            }
            _ = wait(fd, for: Int16(POLLOUT), until: deadline)
        }
    }

    /// The next frame before `deadline` (nothing else is watched).
    func receive(until deadline: Deadline, cancelFD: Int32, what: String) throws(HandoffError) -> Frame {
        while true {
            if let frame = try readFrame() { return frame }
            guard deadline.pollTimeout != nil else {
                throw HandoffError(.timedOut, "\(peer) did not send \(what) in time: pairing stopped")
            }
            if wait(fd, for: Int16(POLLIN), until: deadline, cancel: cancelFD) == .cancelled { throw PairingConnection.cancelled }
        }
    }

    /// Best effort, once: the other side learns the pairing is over.
    func sendReject() {
        try? send(PairingMessage.reject.frame, until: Deadline(after: 1))
    }

    static let cancelled = HandoffError(.handoffFailed, "pairing interrupted: nothing was exchanged")

    /// The text address of a connected or accepted socket's peer.
    static func peerName(_ storage: sockaddr_storage) -> String {
        var names: [UInt32: String] = [:]
        return UDPAddress(storage: storage, names: &names)?.host ?? "?"
    }

    /// The port a bound socket has.
    static func localPort(_ fd: Int32) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        // sin_port and sin6_port sit at the same offset.
        return withUnsafeBytes(of: &storage) { UInt16($0[2]) << 8 | UInt16($0[3]) }
    }
}
