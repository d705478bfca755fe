// SPDX-License-Identifier: MIT OR Apache-2.0
import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// What the library's socket BIO knows about its socket. Owned by the
/// TLSSocket; only touched inside OpenSSL calls, which run under the
/// socket's SSL lock.
struct ChannelBIOState {
    var fd: Int32
    /// The peer closed its sending side (recv returned 0).
    var sawEOF = false
    /// The last hard socket error (errno), 0 if none.
    var error: Int32 = 0
    /// Bytes received and sent so far: how far a handshake has got.
    var received = 0
    var sent = 0
}

/// A socket BIO that writes with `send(..., MSG_NOSIGNAL)`.
///
/// OpenSSL's own socket BIO writes with write(2), which raises SIGPIPE when
/// the peer has gone; that signal's default action kills the host process,
/// and a library may not change process-wide signal dispositions. With
/// MSG_NOSIGNAL the write fails with EPIPE instead. Reads use recv(2).
/// The socket is non-blocking: EAGAIN becomes a retry, which SSL_* report as
/// SSL_ERROR_WANT_READ / WANT_WRITE and the caller waits in poll().
struct ChannelBIOMethod: @unchecked Sendable {
    // @unchecked: the BIO_METHOD is built once and never changed; OpenSSL
    // only reads it. It lives as long as the process.
    let pointer: OpaquePointer
}

let channelBIOMethod: ChannelBIOMethod = {
    guard let method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "libhandoff socket") else {
        fatalError("libhandoff: OpenSSL could not create a BIO method (out of memory)")
    }
    _ = BIO_meth_set_write(method, channelBIOWrite)
    _ = BIO_meth_set_read(method, channelBIORead)
    _ = BIO_meth_set_ctrl(method, channelBIOControl)
    return ChannelBIOMethod(pointer: method)
}()

/// BIO_FLAGS_RWS | BIO_FLAGS_SHOULD_RETRY; BIO_clear_retry_flags and
/// BIO_set_retry_read/write are macros over BIO_clear_flags/BIO_set_flags.
private let retryFlags = Int32(BIO_FLAGS_READ | BIO_FLAGS_WRITE | BIO_FLAGS_IO_SPECIAL | BIO_FLAGS_SHOULD_RETRY)

private func state(_ bio: OpaquePointer) -> UnsafeMutablePointer<ChannelBIOState>? {
    BIO_get_data(bio)?.assumingMemoryBound(to: ChannelBIOState.self)
}

private let channelBIOWrite: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = { bio, buffer, length in
    guard let bio, let state = state(bio) else { return -1 }
    BIO_clear_flags(bio, retryFlags)
    guard let buffer, length > 0 else { return 0 }
    let sent = send(state.pointee.fd, buffer, Int(length), Int32(MSG_NOSIGNAL))
    if sent >= 0 {
        state.pointee.sent += sent
        return Int32(sent)
    }
    let code = errno
    if code == EAGAIN || code == EWOULDBLOCK || code == EINTR {
        BIO_set_flags(bio, Int32(BIO_FLAGS_WRITE | BIO_FLAGS_SHOULD_RETRY))
    } else {
        state.pointee.error = code
    }
    return -1
}

private let channelBIORead: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int32) -> Int32 = { bio, buffer, length in
    guard let bio, let state = state(bio) else { return -1 }
    BIO_clear_flags(bio, retryFlags)
    guard let buffer, length > 0 else { return 0 }
    let received = recv(state.pointee.fd, buffer, Int(length), 0)
    if received > 0 {
        state.pointee.received += received
        return Int32(received)
    }
    if received == 0 {
        state.pointee.sawEOF = true
        return 0
    }
    let code = errno
    if code == EAGAIN || code == EWOULDBLOCK || code == EINTR {
        BIO_set_flags(bio, Int32(BIO_FLAGS_READ | BIO_FLAGS_SHOULD_RETRY))
    } else {
        state.pointee.error = code
    }
    return -1
}

/// Only FLUSH matters (OpenSSL flushes after each handshake flight and
/// treats 0 as a failure); every other control is "not supported" (0),
/// which also keeps kTLS off (BIO_CTRL_GET_KTLS_SEND).
private let channelBIOControl: @convention(c) (OpaquePointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int = { _, command, _, _ in
    command == BIO_CTRL_FLUSH ? 1 : 0
}
