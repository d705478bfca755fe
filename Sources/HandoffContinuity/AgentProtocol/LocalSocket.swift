// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel
import CLinux
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The local protocol's transport (docs/agent.md §3): a `SOCK_SEQPACKET`
/// Unix-domain socket, one message per datagram, descriptors attached with
/// `SCM_RIGHTS`, the peer's uid checked with `SO_PEERCRED`. Descriptors are
/// non-blocking and close-on-exec.
public enum LocalSocket {
    public struct Credentials: Sendable, Equatable {
        public var pid: Int32
        public var uid: UInt32
        public var gid: UInt32
    }

    /// What one receive gave.
    public enum Received {
        /// A datagram, with the descriptors that came with it (the caller owns them).
        case message([UInt8], descriptors: [Int32])
        case wouldBlock
        /// The peer closed the connection.
        case closed
        /// The datagram (or its descriptors) did not fit: it is lost.
        case truncated
        case failed(Int32)
    }

    /// Listens at `path` (the directory must exist; see `AgentSocketPath`).
    /// A stale socket file nobody listens on is replaced; one a live agent
    /// listens on is not. The socket file is mode 0600.
    /// - Throws: `.io` (with the reason), `.invalidState` when another
    ///   agent listens there already.
    public static func listen(at path: String, backlog: Int32 = 64) throws(HandoffError) -> Int32 {
        let address = try unixAddress(path)
        if access(path, F_OK) == 0 {
            if let probe = try? connect(to: path, timeout: 0.5) {
                close(probe)
                throw HandoffError(.invalidState, "another agent listens on \(path) already")
            }
            unlink(path)
        }
        // Bound and listening under a name of its own first, then linked to
        // `path`: an app never finds the path before the socket accepts
        // (between bind and listen it would be refused, and start without
        // the agent). link, unlike rename, fails when another agent took
        // the path meanwhile. A folder too long for the extra name binds
        // `path` itself, as before.
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let temporary = "\(folder)/.handoff-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let staged = try? unixAddress(temporary)
        var bindAddress = staged ?? address
        let fd = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw ioError("cannot create a local socket") }
        // Only the owner may connect: the socket's mode is set before it
        // can accept anything (umask covers the window between bind and chmod).
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &bindAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(previous)
        guard bound == 0 else {
            let error = ioError("cannot bind \(staged == nil ? path : temporary)")
            close(fd)
            throw error
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let error = ioError("cannot listen on \(path)")
            close(fd)
            if staged != nil { unlink(temporary) }
            throw error
        }
        if staged != nil {
            let linked = link(temporary, path) == 0
            let error = linked ? nil : errno == EEXIST
                ? HandoffError(.invalidState, "another agent listens on \(path) already")
                : ioError("cannot link \(temporary) to \(path)")
            unlink(temporary)
            if let error {
                close(fd)
                throw error
            }
        }
        return fd
    }

    /// Connects to an agent at `path`, within `timeout` seconds, and checks
    /// that the agent runs as this user.
    /// - Throws: `.connectionUnavailable` when nothing listens there (or it
    ///   does not answer in time), `.permission` when it is another user's.
    public static func connect(to path: String, timeout: Double) throws(HandoffError) -> Int32 {
        var address = try unixAddress(path)
        let fd = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw ioError("cannot create a local socket") }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if result != 0 {
            let code = errno
            if code == EINPROGRESS || code == EAGAIN {
                var soError: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                if wait(fd, for: Int16(POLLOUT), until: Deadline(after: timeout)) != .ready
                    || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) != 0 || soError != 0 {
                    close(fd)
                    throw HandoffError(.connectionUnavailable, "the agent at \(path) does not answer")
                }
            } else {
                close(fd)
                throw HandoffError(.connectionUnavailable, "no agent listens at \(path) (\(String(cString: strerror(code))))")
            }
        }
        guard let peer = credentials(of: fd) else {
            close(fd)
            throw HandoffError(.connectionUnavailable, "cannot tell who runs the agent at \(path)")
        }
        guard peer.uid == getuid() else {
            close(fd)
            throw HandoffError(.permission, "the agent at \(path) runs as uid \(peer.uid), not as this user (\(getuid())): not connecting")
        }
        return fd
    }

    /// Accepts one connection (non-blocking, close-on-exec), or nil.
    public static func accept(_ listener: Int32) -> Int32? {
        let fd = clinux_accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
        return fd >= 0 ? fd : nil
    }

    /// Who is at the other end.
    public static func credentials(of fd: Int32) -> Credentials? {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
        guard clinux_peer_credentials(fd, &pid, &uid, &gid) == 0 else { return nil }
        return Credentials(pid: pid, uid: uid, gid: gid)
    }

    /// Sends one datagram without blocking. Returns false when the socket's
    /// buffer is full (try again when it is writable).
    /// - Throws: `.connectionUnavailable` when the peer is gone.
    public static func send(_ fd: Int32, _ bytes: [UInt8], passing descriptor: Int32? = nil) throws(HandoffError) -> Bool {
        let sent = bytes.withUnsafeBytes {
            clinux_send_message(fd, $0.baseAddress, UInt(bytes.count), descriptor ?? -1, Int32(MSG_DONTWAIT))
        }
        if sent >= 0 { return true }
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK { return false }
        if code == EINTR { return try send(fd, bytes, passing: descriptor) }
        throw HandoffError(.connectionUnavailable, "the local connection is gone (\(String(cString: strerror(code))))")
    }

    /// Sends one datagram, waiting at most `timeout` seconds for room.
    public static func send(_ fd: Int32, _ bytes: [UInt8], passing descriptor: Int32? = nil,
                            timeout: Double) throws(HandoffError) {
        let deadline = Deadline(after: timeout)
        while try !send(fd, bytes, passing: descriptor) {
            guard deadline.pollTimeout != nil else { throw HandoffError(.connectionUnavailable, "the local connection does not take messages") }
            _ = wait(fd, for: Int16(POLLOUT), until: deadline)
        }
    }

    /// Receives one datagram without blocking, with up to 4 descriptors.
    public static func receive(_ fd: Int32) -> Received {
        var fds = [Int32](repeating: -1, count: 4)
        var count: Int32 = 0
        var truncated: Int32 = 0
        var received = -1
        var code: Int32 = 0
        // Received into uninitialized memory and kept as is: no 64 KiB to
        // clear and no copy per message (this is on every handoff's path).
        let buffer = [UInt8](unsafeUninitializedCapacity: AgentFrame.maxSize + 1) { raw, initialized in
            received = clinux_receive_message(fd, raw.baseAddress, UInt(raw.count), &fds, 4, &count, &truncated, Int32(MSG_DONTWAIT))
            code = errno
            initialized = max(0, min(received, raw.count))
        }
        let passed = Array(fds.prefix(Int(count)))
        if received < 0 {
            if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock }
            if code == EINTR { return receive(fd) }
            return code == ECONNRESET ? .closed : .failed(code)
        }
        if truncated != 0 || received > AgentFrame.maxSize {
            passed.forEach { close($0) }
            return .truncated
        }
        if received == 0 && passed.isEmpty { return .closed }
        return .message(buffer, descriptors: passed)
    }

    private static func unixAddress(_ path: String) throws(HandoffError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else {
            throw HandoffError(.invalidArgument, "a local socket path is 1 to \(capacity - 1) bytes: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        return address
    }

    private static func ioError(_ what: String) -> HandoffError {
        HandoffError(.io, "\(what): \(String(cString: strerror(errno)))")
    }
}
