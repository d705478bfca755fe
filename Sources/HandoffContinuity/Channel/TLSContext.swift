// SPDX-License-Identifier: MIT OR Apache-2.0
import COpenSSL
import HandoffModel

/// One configured `SSL_CTX`: TLS 1.3 only, TLS_AES_128_GCM_SHA256 only, an
/// external PSK with (EC)DHE, no certificates, no tickets, no early data.
///
/// A server keeps one for its lifetime; a client makes one per connection,
/// because the client's PSK identity is new for every connection. The
/// OpenSSL callbacks reach this object through the context's ex_data slot
/// (`SSL_get_SSL_CTX` + `SSL_CTX_get_ex_data`), never through globals.
final class TLSContext: @unchecked Sendable {
    // @unchecked: `ctx` is fully configured in init and only read afterwards
    // (SSL_new on a configured SSL_CTX is thread-safe); `psk` and `identity`
    // are immutable.

    enum Role { case client, server }

    /// Every identity a client sends starts with these bytes, and a server
    /// accepts any identity that does (and no other).
    static let identityPrefix: [UInt8] = Array("handoff1.".utf8)
    /// PSK lengths accepted (the account's channel key is 32 bytes).
    static let pskLengths = 16...64
    /// TLS_AES_128_GCM_SHA256 (RFC 8446 B.4).
    static let cipherSuiteID: [UInt8] = [0x13, 0x01]
    static let cipherSuiteName = "TLS_AES_128_GCM_SHA256"
    /// Key exchange groups offered, in order; x25519 gets the key share.
    static let groups = "X25519:P-256"

    let role: Role
    /// The protocol revisions this end speaks on the channel, announced
    /// and chosen through ALPN (docs/PROTOCOL.md §10).
    let revisions: ClosedRange<Int>
    let ctx: OpaquePointer
    private let psk: [UInt8]
    /// The client's identity, in memory that lives as long as the context.
    private let identity: UnsafeMutableBufferPointer<UInt8>

    /// `revisions` other than the release's own are for tests that play an
    /// older or newer peer.
    init(role: Role, psk: [UInt8], identity: [UInt8] = [],
         revisions: ClosedRange<Int> = ProtocolRevision.spoken) throws(HandoffError) {
        guard Self.pskLengths.contains(psk.count) else {
            throw HandoffError(.invalidArgument, "the channel key is \(psk.count) bytes: it must be \(Self.pskLengths.lowerBound)...\(Self.pskLengths.upperBound) bytes")
        }
        self.role = role
        self.psk = psk
        self.revisions = revisions
        self.ctx = try Self.makeContext(role, revisions: revisions)
        self.identity = .allocate(capacity: max(1, identity.count))
        _ = self.identity.initialize(from: identity)
        identityCount = identity.count
        let installed = SSL_CTX_set_ex_data(ctx, contextExDataIndex, Unmanaged.passUnretained(self).toOpaque())
        precondition(installed == 1, "libhandoff: OpenSSL could not store the channel context (out of memory)")
    }

    private let identityCount: Int

    deinit {
        _ = SSL_CTX_set_ex_data(ctx, contextExDataIndex, nil)
        SSL_CTX_free(ctx)
        identity.deallocate()
    }

    /// A new random client identity: the prefix and 32 lowercase hex digits
    /// (128 random bits), so no identifier is stable across connections.
    static func randomIdentity() -> [UInt8] {
        let hex = Array("0123456789abcdef".utf8)
        var out = identityPrefix
        for byte in Crypto.randomBytes(16) {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0f)])
        }
        return out
    }

    static func isAcceptedIdentity(_ identity: UnsafeBufferPointer<UInt8>) -> Bool {
        identity.count >= identityPrefix.count && identity.prefix(identityPrefix.count).elementsEqual(identityPrefix)
    }

    private static func makeContext(_ role: Role, revisions: ClosedRange<Int>) throws(HandoffError) -> OpaquePointer {
        ERR_clear_error()
        let method = role == .client ? TLS_client_method() : TLS_server_method()
        guard let ctx = SSL_CTX_new(method) else {
            throw HandoffError(.handoffFailed, "OpenSSL could not create a TLS context (\(drainOpenSSLErrors() ?? "unknown error"))")
        }
        func fail(_ what: String) -> HandoffError {
            let reason = drainOpenSSLErrors() ?? "unknown error"
            SSL_CTX_free(ctx)
            return HandoffError(.handoffFailed, "OpenSSL refused to \(what) (\(reason)): check that the system's OpenSSL is 3.x with TLS 1.3")
        }
        // SSL_CTX_set_min/max_proto_version are macros Swift cannot import:
        // they expand to SSL_CTX_ctrl with SSL_CTRL_SET_MIN/MAX_PROTO_VERSION.
        guard SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_3_VERSION), nil) == 1,
              SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(TLS1_3_VERSION), nil) == 1
        else { throw fail("limit the channel to TLS 1.3") }
        guard SSL_CTX_set_ciphersuites(ctx, cipherSuiteName) == 1 else { throw fail("select \(cipherSuiteName)") }
        // SSL_CTX_set1_groups_list is a macro: SSL_CTX_ctrl(SSL_CTRL_SET_GROUPS_LIST).
        let groupsSet = groups.withCString { SSL_CTX_ctrl(ctx, SSL_CTRL_SET_GROUPS_LIST, 0, UnsafeMutableRawPointer(mutating: $0)) }
        guard groupsSet == 1 else { throw fail("offer the groups \(groups)") }
        // SSL_OP_NO_TICKET and SSL_OP_ALLOW_NO_DHE_KEX are SSL_OP_BIT(n), a
        // function-like macro Swift cannot import: bits 14 and 10. Clearing
        // ALLOW_NO_DHE_KEX keeps (EC)DHE mandatory even if a system
        // openssl.cnf turned it on.
        let noTicket: UInt64 = 1 << 14
        let allowNoDHEKeyExchange: UInt64 = 1 << 10
        _ = SSL_CTX_set_options(ctx, noTicket)
        _ = SSL_CTX_clear_options(ctx, allowNoDHEKeyExchange)
        guard SSL_CTX_set_num_tickets(ctx, 0) == 1 else { throw fail("disable session tickets") }
        // SSL_CTX_set_session_cache_mode and SSL_CTX_set_mode are macros over SSL_CTX_ctrl.
        _ = SSL_CTX_ctrl(ctx, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF), nil)
        // Partial writes let send() advance through a large frame record by
        // record; the moving-buffer mode lets a retried SSL_write come from a
        // Swift array whose address is not promised to be stable.
        _ = SSL_CTX_ctrl(ctx, SSL_CTRL_MODE, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER), nil)
        // Read ahead into a large buffer: bulk data (continuation streams)
        // then costs one recv per many records, not two per record.
        _ = SSL_CTX_ctrl(ctx, SSL_CTRL_SET_READ_AHEAD, 1, nil)
        SSL_CTX_set_default_read_buffer_len(ctx, 64 * 1024)
        guard SSL_CTX_set_max_early_data(ctx, 0) == 1 else { throw fail("disable early data") }
        switch role {
        case .client:
            // No trust anchors are loaded: should a server ever answer with a
            // certificate instead of taking the PSK, verification fails.
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
            // Every revision it speaks, highest first; a revision-1 server
            // (0.1.0) ignores the list, which means revision 1.
            let offer = ProtocolRevision.alpnOffer(revisions)
            let offered = offer.withUnsafeBufferPointer { SSL_CTX_set_alpn_protos(ctx, $0.baseAddress, UInt32($0.count)) }
            guard offered == 0 else { throw fail("offer the protocol revisions through ALPN") }  // 0 is success here
        case .server:
            SSL_CTX_set_psk_find_session_callback(ctx, serverFindSession)
            SSL_CTX_set_alpn_select_cb(ctx, serverSelectRevision, nil)
        }
        return ctx
    }

    /// A new SSL over the library's MSG_NOSIGNAL socket BIO (see ChannelBIO).
    func makeSSL(bio bioState: UnsafeMutablePointer<ChannelBIOState>) throws(HandoffError) -> OpaquePointer {
        ERR_clear_error()
        guard let ssl = SSL_new(ctx) else {
            throw HandoffError(.handoffFailed, "OpenSSL could not create a TLS connection (\(drainOpenSSLErrors() ?? "out of memory"))")
        }
        guard let bio = BIO_new(channelBIOMethod.pointer) else {
            SSL_free(ssl)
            throw HandoffError(.handoffFailed, "OpenSSL could not create a socket BIO (\(drainOpenSSLErrors() ?? "out of memory"))")
        }
        BIO_set_data(bio, UnsafeMutableRawPointer(bioState))
        BIO_set_init(bio, 1)
        SSL_set_bio(ssl, bio, bio)  // one reference, owned by the SSL from here
        switch role {
        case .client:
            SSL_set_psk_use_session_callback(ssl, clientUseSession)
            SSL_set_connect_state(ssl)
        case .server:
            SSL_set_accept_state(ssl)
        }
        return ssl
    }

    /// The object behind an SSL's context, for the callbacks.
    fileprivate static func of(_ ssl: OpaquePointer) -> TLSContext? {
        guard let ctx = SSL_get_SSL_CTX(ssl), let raw = SSL_CTX_get_ex_data(ctx, contextExDataIndex) else { return nil }
        return Unmanaged<TLSContext>.fromOpaque(raw).takeUnretainedValue()
    }

    /// A fresh SSL_SESSION carrying the PSK for TLS_AES_128_GCM_SHA256 and
    /// TLS 1.3, or nil when OpenSSL refuses (out of memory).
    fileprivate func makePSKSession(_ ssl: OpaquePointer) -> OpaquePointer? {
        guard let cipher = SSL_CIPHER_find(ssl, Self.cipherSuiteID), let session = SSL_SESSION_new() else { return nil }
        let keySet = psk.withUnsafeBufferPointer { SSL_SESSION_set1_master_key(session, $0.baseAddress, $0.count) }
        guard keySet == 1, SSL_SESSION_set_cipher(session, cipher) == 1,
              SSL_SESSION_set_protocol_version(session, TLS1_3_VERSION) == 1
        else {
            SSL_SESSION_free(session)
            return nil
        }
        return session
    }

    fileprivate var identityBytes: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: identity[0..<identityCount])
    }
}

/// ex_data slot of SSL_CTX holding its TLSContext (SSL_CTX_get_ex_new_index
/// is a macro over CRYPTO_get_ex_new_index). Swift initialises globals once,
/// thread-safely.
private let contextExDataIndex: Int32 = {
    let index = CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_SSL_CTX, 0, nil, nil, nil, nil)
    precondition(index >= 0, "libhandoff: OpenSSL has no ex_data slot left")
    return index
}()

/// Server: an identity with the handoff prefix gets the account's PSK; any
/// other gets none, and as the server has no certificate the handshake then
/// fails. The binder in the ClientHello proves the client holds the key.
private let serverFindSession: SSL_psk_find_session_cb_func = { ssl, identity, identityLength, sessionOut in
    sessionOut?.pointee = nil
    guard let ssl, let context = TLSContext.of(ssl) else { return 0 }
    guard let identity, TLSContext.isAcceptedIdentity(UnsafeBufferPointer(start: identity, count: identityLength)) else {
        return 1  // not ours: no PSK
    }
    guard let session = context.makePSKSession(ssl) else { return 0 }
    sessionOut?.pointee = session  // OpenSSL takes ownership
    return 1
}

/// Server: picks the highest revision in the client's ALPN list that it
/// speaks; with none (a revision-1 client offers no list, stock `openssl
/// s_client` neither) the handshake goes on without ALPN: revision 1.
private let serverSelectRevision: SSL_CTX_alpn_select_cb_func = { ssl, out, outLength, offer, offerLength, _ in
    guard let ssl, let context = TLSContext.of(ssl), let offer,
          let chosen = ProtocolRevision.choose(fromOffer: UnsafeBufferPointer(start: offer, count: Int(offerLength)),
                                               ours: context.revisions)
    else { return SSL_TLSEXT_ERR_NOACK }
    out?.pointee = offer + chosen.range.lowerBound  // points into the client's list, as OpenSSL allows
    outLength?.pointee = UInt8(chosen.range.count)
    return SSL_TLSEXT_ERR_OK
}

/// Client: offers the PSK under this connection's identity. OpenSSL may
/// call this twice (again after a HelloRetryRequest, then with the
/// negotiated handshake digest); the identity stays the same.
private let clientUseSession: SSL_psk_use_session_cb_func = { ssl, md, identityOut, identityLengthOut, sessionOut in
    sessionOut?.pointee = nil
    identityOut?.pointee = nil
    identityLengthOut?.pointee = 0
    guard let ssl, let context = TLSContext.of(ssl) else { return 0 }
    if let md {
        // Our PSK is bound to SHA-256; offer nothing for another digest.
        guard let cipher = SSL_CIPHER_find(ssl, TLSContext.cipherSuiteID),
              let ours = SSL_CIPHER_get_handshake_digest(cipher),
              EVP_MD_get_type(ours) == EVP_MD_get_type(md)
        else { return 1 }
    }
    guard let session = context.makePSKSession(ssl) else { return 0 }
    let identity = context.identityBytes
    identityOut?.pointee = identity.baseAddress  // OpenSSL copies it
    identityLengthOut?.pointee = identity.count
    sessionOut?.pointee = session  // OpenSSL takes ownership
    return 1
}

/// Empties this thread's OpenSSL error queue, returning the first reason.
/// Called around every OpenSSL operation so errors never leak from one
/// connection (or thread) into another's SSL_get_error.
func drainOpenSSLErrors() -> String? {
    var first: String?
    while true {
        let code = ERR_get_error()
        if code == 0 { break }
        if first == nil {
            if let reason = ERR_reason_error_string(code) {
                first = String(cString: reason)
            } else {
                var buffer = [CChar](repeating: 0, count: 256)
                ERR_error_string_n(code, &buffer, buffer.count)
                first = cBufferString(buffer)
            }
        }
    }
    return first
}
