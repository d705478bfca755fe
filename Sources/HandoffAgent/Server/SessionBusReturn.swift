// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffDBus
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Notices the session bus coming back after it went away (a session
/// ended and started again, dbus-daemon restarted) or appearing after the
/// agent started without one, without waking up meanwhile (docs/agent.md
/// §8 "Every state of the machine"): inotify on the bus socket's folder
/// (`AgentSocketWatch`, as for the agent's own socket). When the socket is
/// there the owner tries again; a try that fails with the socket present
/// (the bus not listening yet) is retried 0.5 s later, doubling to 60 s:
/// bounded, and nothing at all while the socket is absent.
///
/// Only `unix:path=` addresses can be watched; another kind (an abstract
/// socket, `unix:dir=`) is not, and the owner says so once.
///
/// Loop thread only.
final class SessionBusReturn: AgentLoopSource {
    static let firstRetry = 0.5
    static let lastRetry = 60.0

    let socketPath: String
    private let watch: AgentSocketWatch
    /// Tries to connect again; true when the bus answered.
    private let reconnect: () -> Bool
    private var retryAt: Double?
    private var retryDelay = firstRetry

    /// Nil when `address` (nil: the environment's) names no socket path.
    init?(address: String?, reconnect: @escaping () -> Bool) {
        guard let path = Self.socketPath(of: address ?? SessionBusAddress.resolve(SessionBus.processEnvironment())),
              let watch = try? AgentSocketWatch(socketPath: path) else { return nil }
        socketPath = path
        self.watch = watch
        self.reconnect = reconnect
        // Already back (it came back between the loss and now).
        if watch.socketExists { retryAt = monotonicSeconds() }
    }

    /// The path of the first `unix:path=` entry of a D-Bus address, its
    /// %xx escapes undone; nil for any other kind.
    static func socketPath(of address: String?) -> String? {
        guard let address else { return nil }
        for entry in address.split(separator: ";") {
            guard entry.hasPrefix("unix:") else { continue }
            for pair in entry.dropFirst("unix:".count).split(separator: ",") where pair.hasPrefix("path=") {
                return unescape(String(pair.dropFirst("path=".count)))
            }
        }
        return nil
    }

    private static func unescape(_ value: String) -> String? {
        var bytes: [UInt8] = []
        var utf8 = Array(value.utf8)[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2, let hex = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(hex)
            utf8 = utf8.dropFirst(2)
        }
        let path = String(decoding: bytes, as: UTF8.self)
        return path.hasPrefix("/") ? path : nil
    }

    // MARK: AgentLoopSource

    var fd: Int32 { watch.fd }
    var pollEvents: Int16 { Int16(POLLIN) }
    var timeoutMilliseconds: Int32 {
        guard let retryAt else { return -1 }
        return Int32(min(Double(Int32.max), max(0, (retryAt - monotonicSeconds()) * 1000).rounded(.up)))
    }

    func process() {
        if watch.drain(), watch.socketExists, retryAt == nil { retryAt = monotonicSeconds() }
        guard let due = retryAt, due <= monotonicSeconds() else { return }
        guard watch.socketExists else {
            // Gone again: wait for it to be made.
            retryAt = nil
            retryDelay = Self.firstRetry
            return
        }
        if reconnect() {
            retryAt = nil
            retryDelay = Self.firstRetry
        } else {
            retryAt = monotonicSeconds() + retryDelay
            retryDelay = min(Self.lastRetry, retryDelay * 2)
        }
    }
}
