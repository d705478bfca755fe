// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffRelay
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The agent's relay (docs/agent.md §12): a `RelaySession` whose broker
/// client is libmosquitto's (`MQTTConnection`), one per connection attempt
/// with the Will the session seals for it.
public enum AgentRelay {
    /// Where the broker is and how to log in.
    public struct Broker: Sendable {
        public var host: String
        public var port: Int
        public var username: String?
        public var password: String?
        /// mqtts://: TLS, checked against `caFile` or the system's certificates.
        public var tls: Bool
        public var caFile: String?
        public init(host: String, port: Int, username: String?, password: String?, tls: Bool, caFile: String?) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.tls = tls
            self.caFile = caFile
        }

        /// `host:port`, `[v6]:port`.
        public var name: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// A session for this account and device (not started: the engine
    /// starts it). Throws `.io` when the system refuses its pipes.
    public static func session(_ broker: Broker, account: AccountKey, device: DeviceIdentity) throws(HandoffError) -> RelaySession {
        try RelaySession(account: account, deviceID: device.idBytes, brokerName: broker.name, healthyAfter: healthyAfter) { will throws(HandoffError) in
            var options = MQTTConnection.Options(host: broker.host, port: broker.port)
            options.username = broker.username
            options.password = broker.password
            options.tls = broker.tls
            options.caFile = broker.caFile
            options.will = will
            options.keepalive = keepalive
            return try MQTTConnection(options)
        }
    }

    /// The MQTT keepalive: 30 s, or `HANDOFF_RELAY_KEEPALIVE` seconds
    /// (5…300; for tests, which wait for a Will in 1.5 keepalives).
    static var keepalive: Int {
        guard let value = getenv("HANDOFF_RELAY_KEEPALIVE"), let n = Int(String(cString: value)), (5...300).contains(n) else { return 30 }
        return n
    }

    /// Seconds connected and subscribed after which a drop reconnects at
    /// the back-off's first step: `RelaySession.defaultHealthyAfter`, or
    /// `HANDOFF_RELAY_HEALTHY_AFTER` seconds (1…600; for tests).
    static var healthyAfter: Double {
        guard let value = getenv("HANDOFF_RELAY_HEALTHY_AFTER"), let n = Double(String(cString: value)),
              (1...600).contains(n) else { return RelaySession.defaultHealthyAfter }
        return n
    }

    /// The check `handoff relay set` makes: reach the broker within
    /// `timeout` seconds and, for mqtts://, verify its certificate with a
    /// whole TLS handshake (then a clean close), as the agent will. Throws
    /// `.connectionUnavailable` when it cannot be reached, `.permission`
    /// when its certificate fails verification (naming it); returns the
    /// certificate's subject and issuer for TLS.
    public static func check(_ broker: Broker, timeout: Double) throws(HandoffError) -> (subject: String?, issuer: String?) {
        let trust = broker.tls || broker.caFile != nil ? BrokerProbe.Trust(caFile: broker.caFile) : nil
        let checked = try BrokerProbe.check(host: broker.host, port: broker.port, timeout: timeout, name: broker.name, trust: trust)
        return (checked.subject, checked.issuer)
    }

    /// The end of every message about the broker's certificate or the CA file.
    public static var caFileHint: String { BrokerTLSCheck.caFileHint }

    /// How many PEM certificates the file at `path` holds (0: none, or not PEM).
    public static func certificateCount(_ path: String) -> Int { BrokerTLSCheck.certificateCount(path) }

    /// The log line for a change of the relay's state.
    public static func logEvent(_ status: RelayStatus) -> AgentLogEvent {
        let text: String = switch status.connection {
        case .connecting: "relay: connecting to \(status.broker)"
        case .connected: "relay: connected to \(status.broker)"
        case .refused, .unreachable:
            "relay: \(status.message ?? status.connection.rawValue); trying again in \(Int(status.retryIn ?? 0)) s"
        case .stopped: "relay: disconnected from \(status.broker)"
        }
        var event = AgentLogEvent("relay", text, ["broker": .string(status.broker), "state": .string(status.connection.rawValue)])
        if let message = status.message { event.fields.append((key: "error", value: .string(message))) }
        if let wait = status.retryIn { event.fields.append((key: "retry_in", value: .int(Int64(wait.rounded(.up))))) }
        return event
    }
}
