// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffContinuity
import HandoffModel

/// This device's own channel: a TLS server on the channel address, and a
/// handshake with it over loopback: proves the TLS stack (OpenSSL 3, TLS
/// 1.3 with an external PSK) works here.
enum LocalChannelCheck: DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding] {
        let account = context.account ?? AccountKey.generate()
        let server: ChannelServer
        do {
            server = try ChannelServer(listeningOn: context.channelAddress, psk: account.derived.channelPSK) { connection in
                connection.close()
            }
        } catch {
            return [.fail("channel.local", tr("cannot listen for the channel on {address}: {message}",
                                             ["address": "\(context.channelAddress)", "message": error.message]),
                          todo: tr("choose another address or port with --channel HOST:PORT"))]
        }
        defer { server.stop() }
        let host = context.channelAddress.host.contains(":") ? "::1" : "127.0.0.1"
        let loopback = SocketAddress(host: host, port: server.port)
        if let error = ChannelHandshake.handshake(loopback, account: account, limits: context.limits) {
            return [.fail("channel.local", tr("a TLS 1.3 handshake with this device's own channel ({address}) fails: {message}",
                                             ["address": "\(loopback)", "message": error.message]),
                          todo: tr("check OpenSSL 3 (openssl version) and that loopback is up (ip link set lo up)"))]
        }
        return [.ok("channel.local", tr("this device can listen for the channel ({host}, TCP port {port} this time) and complete a TLS 1.3 handshake with it",
                                   ["host": context.channelAddress.host, "port": "\(server.port)"]))]
    }
}
