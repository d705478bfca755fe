// SPDX-License-Identifier: MIT OR Apache-2.0
import COpenSSL
import HandoffBase
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// `BrokerProbe`'s TLS part: one handshake on a connected non-blocking
/// socket, the broker's chain verified against the trusted CAs and its
/// name (or address) checked, as libmosquitto checks them; then a
/// close_notify. The handshake itself does not verify (SSL_VERIFY_NONE):
/// it always completes, so the broker never sees an aborted handshake,
/// and the verification after it can say which certificate failed and why.
package enum BrokerTLSCheck {
    static func run(fd: Int32, host: String, trust: BrokerProbe.Trust, end: Double, name: String) throws(HandoffError) -> BrokerProbe.Checked {
        ERR_clear_error()
        guard let ctx = SSL_CTX_new(TLS_client_method()) else {
            throw HandoffError(.io, "could not set up TLS to the relay broker \(name): \(openSSLError())")
        }
        defer { SSL_CTX_free(ctx) }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
        if let caFile = trust.caFile {
            guard SSL_CTX_load_verify_locations(ctx, caFile, nil) == 1 else {
                throw HandoffError(.permission, "cannot use the CA file \(caFile) for the relay broker \(name): \(openSSLError()); \(caFileHint)")
            }
        } else {
            _ = SSL_CTX_set_default_verify_paths(ctx)
        }
        guard let ssl = SSL_new(ctx) else {
            throw HandoffError(.io, "could not set up TLS to the relay broker \(name): \(openSSLError())")
        }
        defer { SSL_free(ssl) }
        _ = SSL_set_fd(ssl, fd)
        if !isAddress(host) {
            // SSL_set_tlsext_host_name is a macro over SSL_ctrl: SNI, as libmosquitto sends it.
            _ = host.withCString { SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: $0)) }
        }
        SSL_set_connect_state(ssl)
        while true {
            let rc = SSL_do_handshake(ssl)
            if rc == 1 { break }
            let error = SSL_get_error(ssl, rc)
            guard error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE else {
                let why = error == SSL_ERROR_SYSCALL && ERR_peek_error() == 0
                    ? (errno == 0 ? "the broker closed the connection" : String(cString: strerror(errno))) : openSSLError()
                throw HandoffError(.connectionUnavailable, "the TLS handshake with the relay broker \(name) failed: \(why)")
            }
            guard wait(fd, write: error == SSL_ERROR_WANT_WRITE, until: end) else {
                throw HandoffError(.connectionUnavailable, "the relay broker \(name) did not complete a TLS handshake in time")
            }
        }
        // Verified or not, the connection ends with a close_notify.
        let verified: Result<BrokerProbe.Checked, HandoffError>
        do throws(HandoffError) { verified = .success(try verify(ssl, ctx, host: host, trust: trust, name: name)) } catch {
            verified = .failure(error)
        }
        closeNotify(ssl, fd, until: min(end, monotonicSeconds() + 1))
        return try verified.get()
    }

    /// Verifies the chain the broker sent, for a TLS server named `host`.
    private static func verify(_ ssl: OpaquePointer, _ ctx: OpaquePointer, host: String, trust: BrokerProbe.Trust,
                               name: String) throws(HandoffError) -> BrokerProbe.Checked {
        guard let leaf = SSL_get0_peer_certificate(ssl), let store = SSL_CTX_get_cert_store(ctx),
              let verifier = X509_STORE_CTX_new() else {
            throw HandoffError(.connectionUnavailable, "the relay broker \(name) sent no certificate")
        }
        defer { X509_STORE_CTX_free(verifier) }
        guard X509_STORE_CTX_init(verifier, store, leaf, SSL_get_peer_cert_chain(ssl)) == 1,
              X509_STORE_CTX_set_default(verifier, "ssl_server") == 1, let param = X509_STORE_CTX_get0_param(verifier) else {
            throw HandoffError(.io, "could not verify the relay broker \(name)'s certificate: \(openSSLError())")
        }
        // libmosquitto checks the IP address or the DNS name it connected to.
        _ = isAddress(host) ? X509_VERIFY_PARAM_set1_ip_asc(param, host) : X509_VERIFY_PARAM_set1_host(param, host, 0)
        let checked = BrokerProbe.Checked(subject: nameText(X509_get_subject_name(leaf)), issuer: nameText(X509_get_issuer_name(leaf)))
        if X509_verify_cert(verifier) == 1 { return checked }
        let code = X509_STORE_CTX_get_error(verifier)
        let cert = X509_STORE_CTX_get_current_cert(verifier) ?? leaf
        // A CA of the chain the broker sent (one not trusted here): named with the broker's own.
        let above = X509_cmp(cert, leaf) == 0 ? nil : checked.subject
        throw HandoffError(.permission, failure(code: code, subject: nameText(X509_get_subject_name(cert)),
                                                issuer: nameText(X509_get_issuer_name(cert)), leaf: above, host: host, trust: trust, name: name))
    }

    /// The words of a verification failure: OpenSSL's reason, the
    /// certificate, the name expected, and what to do.
    static func failure(code: Int32, subject: String?, issuer: String?, leaf: String? = nil, host: String,
                        trust: BrokerProbe.Trust, name: String) -> String {
        let reason = String(cString: X509_verify_cert_error_string(Int(code)))
        let against = trust.caFile.map { "the CA file \($0)" } ?? "the system's certificates"
        return "the relay broker \(name)'s certificate failed verification: \(reason) "
            + "(certificate \"\(subject ?? "?")\", issued by \"\(issuer ?? "?")\""
            + (leaf.map { ", in the chain of the broker's \"\($0)\"" } ?? "")
            + "; expected the name \(host); checked against \(against)); "
            + "fix the broker's certificate, or " + caFileHint
    }

    /// How every message about the broker's certificate or the CA file
    /// ends (doctor's relay check knows them by it).
    package static let caFileHint = "give the CA that signed the broker's certificate with handoff relay set URL --ca-file FILE"

    /// A close_notify, then the broker's own (or its end of the
    /// connection), waiting at most until `until`.
    private static func closeNotify(_ ssl: OpaquePointer, _ fd: Int32, until: Double) {
        for _ in 0..<8 {
            let rc = SSL_shutdown(ssl)
            if rc == 1 { return }
            if rc == 0 { continue }  // ours sent: the next call reads the broker's
            let error = SSL_get_error(ssl, rc)
            guard error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE,
                  wait(fd, write: error == SSL_ERROR_WANT_WRITE, until: until) else { return }
        }
    }

    /// Waits for `fd` to be readable (or writable); false at `until`.
    private static func wait(_ fd: Int32, write: Bool, until: Double) -> Bool {
        HandoffBase.wait(fd, for: Int16(write ? POLLOUT : POLLIN), until: Deadline(at: until)) == .ready
    }

    /// "/CN=broker.test" (X509_NAME_oneline).
    static func nameText(_ x509Name: OpaquePointer?) -> String? {
        guard let x509Name, let text = X509_NAME_oneline(x509Name, nil, 0) else { return nil }
        defer { CRYPTO_free(text, nil, 0) }
        return String(cString: text)
    }

    /// Whether `host` is an IPv4 or IPv6 address (not a name).
    static func isAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// The first error of OpenSSL's queue, as text; the queue is emptied.
    static func openSSLError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "unknown error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(cString: buffer)
    }

    /// How many PEM certificates the file holds (0 for none, or not PEM).
    package static func certificateCount(_ path: String) -> Int {
        guard let bio = BIO_new_file(path, "r") else {
            ERR_clear_error()
            return 0
        }
        defer { BIO_free(bio) }
        var count = 0
        while count < 10_000, let cert = PEM_read_bio_X509(bio, nil, nil, nil) {
            X509_free(cert)
            count += 1
        }
        ERR_clear_error()
        return count
    }
}
