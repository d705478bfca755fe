import HandoffContinuity
import HandoffModel

/// Whether a device's channel is there: a TCP connection and a TLS 1.3
/// handshake with the account's pre-shared key, then closed. The library's
/// errors say which step failed: 4609 nothing answers or it refuses, 4608
/// the handshake fails (the other side holds another account's key).
enum ChannelProbe {
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
