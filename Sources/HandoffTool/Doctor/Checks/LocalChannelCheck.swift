// SPDX-License-Identifier: MIT OR Apache-2.0
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
            return [.fail("channel.local", "cannot listen for the channel on \(context.channelAddress): \(error.message)",
                          todo: "choose another address or port with --channel HOST:PORT")]
        }
        defer { server.stop() }
        let host = context.channelAddress.host.contains(":") ? "::1" : "127.0.0.1"
        let loopback = SocketAddress(host: host, port: server.port)
        if let error = ChannelHandshake.handshake(loopback, account: account, limits: context.limits) {
            return [.fail("channel.local", "a TLS 1.3 handshake with this device's own channel (\(loopback)) fails: \(error.message)",
                          todo: "check OpenSSL 3 (openssl version) and that loopback is up (ip link set lo up)")]
        }
        return [.ok("channel.local", "this device can listen for the channel (\(context.channelAddress.host), TCP port "
                    + "\(server.port) this time) and complete a TLS 1.3 handshake with it")]
    }
}
