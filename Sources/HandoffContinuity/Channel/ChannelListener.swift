// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// A bound, listening, non-blocking socket for the channel. `::` is
/// dual-stack (IPV6_V6ONLY off: IPv4 peers arrive on the same port) and
/// falls back to `0.0.0.0` on a host without IPv6.
func openListener(_ address: SocketAddress, backlog: Int32) throws(HandoffError) -> Int32 {
    let dualStack = address.host == "::"
    switch bindAndListen(try address.resolved(), backlog: backlog, dualStack: dualStack) {
    case .success(let fd):
        return fd
    case .failure(let failure):
        guard dualStack, failure.meansNoIPv6 else { throw failure.error(address) }
        let fallback = SocketAddress(host: "0.0.0.0", port: address.port)
        switch bindAndListen(try fallback.resolved(), backlog: backlog, dualStack: false) {
        case .success(let fd): return fd
        case .failure(let failure): throw failure.error(fallback)
        }
    }
}

/// Which system call failed, and its errno.
private struct ListenFailure: Error {
    enum Step { case socket, bind, listen }
    var step: Step
    var code: Int32

    /// No IPv6 in this kernel (EAFNOSUPPORT) or on this host (bind: EADDRNOTAVAIL).
    var meansNoIPv6: Bool { code == EAFNOSUPPORT || (step == .bind && code == EADDRNOTAVAIL) }

    func error(_ address: SocketAddress) -> HandoffError {
        switch step {
        case .socket:
            return HandoffError(.io, "could not create a socket to listen on \(address) (\(errnoText(code)))")
        case .bind:
            let hint = code == EADDRINUSE ? "another program uses this port: choose another or 0"
                : code == EADDRNOTAVAIL ? "this device has no such address" : "check the address"
            return HandoffError(.io, "could not listen on \(address) (\(errnoText(code))): \(hint)")
        case .listen:
            return HandoffError(.io, "could not listen on \(address) (\(errnoText(code)))")
        }
    }
}

private func bindAndListen(_ resolved: ResolvedSocketAddress, backlog: Int32, dualStack: Bool) -> Result<Int32, ListenFailure> {
    let fd = socket(resolved.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return .failure(ListenFailure(step: .socket, code: errno)) }
    var on: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
    if dualStack {
        var off: Int32 = 0
        _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
    }
    if resolved.withSockaddr({ bind(fd, $0, $1) }) != 0 {
        let code = errno
        Glibc.close(fd)
        return .failure(ListenFailure(step: .bind, code: code))
    }
    if listen(fd, backlog) != 0 {
        let code = errno
        Glibc.close(fd)
        return .failure(ListenFailure(step: .listen, code: code))
    }
    return .success(fd)
}
