// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel

/// Doctor's diagnostic of one channel address: a TCP connection and a TLS
/// 1.3 handshake with the account's pre-shared key, then closed. Not
/// discovery (the engine verifies devices for nearby and continue): doctor
/// tries each address and family a device was heard on, and each --peer,
/// to say which one a firewall drops. The library's
/// errors say which step failed: 4609 nothing answers or it refuses, 4608
/// the handshake fails (the other side holds another account's key).
enum ChannelHandshake {
    /// nil when the handshake succeeded, else why not. Blocking.
    static func handshake(_ address: SocketAddress, account: AccountKey,
                          limits: ChannelLimits = ChannelLimits()) -> HandoffError? {
        do {
            let connection = try ChannelConnection.connect(to: address, psk: account.derived.channelPSK, limits: limits)
            connection.close()
            return nil
        } catch {
            return error
        }
    }
}
