// SPDX-License-Identifier: MIT OR Apache-2.0
import CMosquitto
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// One connection to the relay's MQTT broker through libmosquitto
/// (PROTOCOL.md §11, docs/agent.md §12): connect with credentials and a
/// Last Will, subscribe, publish, and take the messages that arrived.
/// The agent's and the tool's only: libhandoff.so never links libmosquitto.
///
/// No thread of its own (docs/agent.md §8): its owner waits on `socket`
/// (and its own deadlines) and calls `pump` when it is readable, when
/// something is to be written, or at `keepalive`. Not thread-safe: one
/// owner thread. Messages over `maxMessageSize` are dropped in
/// libmosquitto's callback, counted, never copied; at most
/// `maxQueuedMessages` wait for `take()` (the rest are dropped, counted).
public final class MQTTConnection: RelayBroker {
    public typealias Will = RelayWill
    public typealias Message = RelayBrokerMessage

    public struct Options: Sendable {
        public var host: String
        public var port: Int
        public var username: String?
        public var password: String?
        /// Empty: libmosquitto makes a random one.
        public var clientID = ""
        /// Seconds; the broker publishes the Will after 1.5 of them in silence.
        public var keepalive = 30
        public var will: Will?
        /// TLS to the broker (mqtts://): its certificate checked against
        /// `caFile`, or the system's certificates when that is nil.
        public var tls = false
        public var caFile: String?
        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    /// The largest message kept: a pipe frame (PROTOCOL.md §11 "Limits").
    public static let maxMessageSize = RelayPipeFrame.maxMessageSize
    public static let maxQueuedMessages = 1024

    /// What libmosquitto's callbacks report, reached through its `obj` pointer.
    final class Inbox {
        var messages: [Message] = []
        var connack: Int32?
        var disconnected: Int32?
        var dropped = 0
        /// SUBSCRIBEs sent and SUBACKs received on this connection.
        var subscribing = 0
        var subacks = 0
    }

    public let options: Options
    private let mosq: OpaquePointer
    private let inbox = Inbox()
    private static let initialized: Bool = { mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue }()

    public init(_ options: Options) throws(HandoffError) {
        guard Self.initialized else { throw HandoffError(.io, "libmosquitto could not be initialised") }
        self.options = options
        let obj = Unmanaged.passUnretained(inbox).toOpaque()
        guard let mosq = mosquitto_new(options.clientID.isEmpty ? nil : options.clientID, true, obj) else {
            throw HandoffError(.io, "libmosquitto could not create a client (out of memory)")
        }
        self.mosq = mosq
        _ = mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5)
        mosquitto_connect_callback_set(mosq) { _, obj, rc in
            Unmanaged<Inbox>.fromOpaque(obj!).takeUnretainedValue().connack = rc
        }
        mosquitto_disconnect_callback_set(mosq) { _, obj, rc in
            Unmanaged<Inbox>.fromOpaque(obj!).takeUnretainedValue().disconnected = rc
        }
        mosquitto_subscribe_callback_set(mosq) { _, obj, _, _, _ in
            Unmanaged<Inbox>.fromOpaque(obj!).takeUnretainedValue().subacks += 1
        }
        mosquitto_message_callback_set(mosq) { _, obj, message in
            let inbox = Unmanaged<Inbox>.fromOpaque(obj!).takeUnretainedValue()
            guard let message = message?.pointee, let topic = message.topic else { return }
            guard message.payloadlen >= 0, Int(message.payloadlen) <= MQTTConnection.maxMessageSize,
                  inbox.messages.count < MQTTConnection.maxQueuedMessages else {
                inbox.dropped += 1
                return
            }
            let payload = message.payloadlen == 0 ? [] :
                Array(UnsafeRawBufferPointer(start: message.payload, count: Int(message.payloadlen)))
            inbox.messages.append(Message(topic: String(cString: topic), payload: payload, retained: message.retain))
        }
        do {
            if let username = options.username {
                try check(mosquitto_username_pw_set(mosq, username, options.password), "set the credentials")
            }
            if let will = options.will {
                try check(will.payload.withUnsafeBytes { mosquitto_will_set(mosq, will.topic, Int32(will.payload.count), $0.baseAddress, 1, true) },
                          "set the Last Will")
            }
            if options.tls || options.caFile != nil {
                if let caFile = options.caFile {
                    try check(mosquitto_tls_set(mosq, caFile, nil, nil, nil, nil), "use the CA file \(caFile)")
                } else {
                    // mqtts:// with no CA file still means TLS: the OS's certificates.
                    try check(mosquitto_int_option(mosq, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "use the system's certificates")
                }
            }
            _ = mosquitto_int_option(mosq, MOSQ_OPT_TCP_NODELAY, 1)
        } catch {
            mosquitto_destroy(mosq)
            throw error
        }
    }

    deinit {
        mosquitto_disconnect(mosq)
        mosquitto_destroy(mosq)
    }

    /// The broker as people write it: `host:port`.
    public var brokerName: String { options.host.contains(":") ? "[\(options.host)]:\(options.port)" : "\(options.host):\(options.port)" }

    /// The socket to wait on (-1 while not connected).
    public var socket: Int32 { mosquitto_socket(mosq) }

    /// Messages dropped for their size or a full queue.
    public var droppedMessages: Int { inbox.dropped }

    /// The largest MQTT packet the broker may send this client (MQTT 5
    /// Maximum Packet Size): a pipe frame with its topic and headers. The
    /// broker drops anything larger for this client (another tenant's
    /// 256 MB message is never sent, so never allocated here).
    public static let maxPacketSize = UInt32(maxMessageSize + 512)

    /// Connects with MQTT 5 and waits for the broker's answer within
    /// `timeout` seconds. The broker is first tried without blocking
    /// (`BrokerProbe`: TCP, and for TLS a whole handshake with the
    /// certificate verified and a clean close), so an unreachable broker
    /// costs at most the timeout and an untrusted certificate is named; a
    /// host name is resolved first, which may take the resolver's own time. A broker that speaks only 3.1.1 is connected
    /// to again with 3.1.1 (then only the size check of the message
    /// callback bounds what arrives).
    /// Throws `.permission` when the broker refuses the credentials or its
    /// certificate fails verification, `.connectionUnavailable` when it
    /// cannot be reached, refuses otherwise or does not answer in time.
    public func connect(timeout: Double) throws(HandoffError) {
        let end = monotonicNow() + timeout
        if try !connect(until: end, timeout: timeout, version: MQTT_PROTOCOL_V5) {
            _ = mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
            _ = try connect(until: end, timeout: timeout, version: MQTT_PROTOCOL_V311)
        }
    }

    /// One attempt with `version`; false when the broker does not speak it.
    private func connect(until end: Double, timeout: Double, version: Int32) throws(HandoffError) -> Bool {
        inbox.connack = nil
        inbox.disconnected = nil
        inbox.subscribing = 0
        inbox.subacks = 0
        let trust = options.tls || options.caFile != nil ? BrokerProbe.Trust(caFile: options.caFile) : nil
        try BrokerProbe.check(host: options.host, port: options.port, timeout: max(0.1, end - monotonicNow()), name: brokerName, trust: trust)
        var properties: OpaquePointer?
        if version == MQTT_PROTOCOL_V5 {
            _ = mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), Self.maxPacketSize)
        }
        let rc = mosquitto_connect_bind_v5(mosq, options.host, Int32(options.port), Int32(options.keepalive), nil, properties)
        mosquitto_property_free_all(&properties)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw HandoffError(.connectionUnavailable, "cannot reach the relay broker \(brokerName): \(Self.text(rc))")
        }
        while inbox.connack == nil {
            let left = end - monotonicNow()
            guard left > 0 else {
                mosquitto_disconnect(mosq)
                throw HandoffError(.connectionUnavailable, "the relay broker \(brokerName) did not answer within \(secondsText(timeout))")
            }
            let rc = mosquitto_loop(mosq, Int32(min(left, 1) * 1000) + 1, 1)
            if inbox.connack == nil, rc != MOSQ_ERR_SUCCESS.rawValue {
                throw HandoffError(.connectionUnavailable, "cannot reach the relay broker \(brokerName): \(Self.text(rc))")
            }
        }
        switch inbox.connack! {
        case 0:
            return true
        case 1 where version == MQTT_PROTOCOL_V5, 132 where version == MQTT_PROTOCOL_V5:
            // 3.1.1's "unacceptable protocol version", 5's "unsupported protocol version".
            mosquitto_disconnect(mosq)
            return false
        case 4, 5, 134, 135:  // 3.1.1: bad user name or password, not authorised; 5: the same
            let who = options.username.map { "the credentials of \"\($0)\"" } ?? "a connection without credentials"
            throw HandoffError(.permission, "the relay broker \(brokerName) refused \(who): \(String(cString: mosquitto_connack_string(inbox.connack!))); check the user name and password (handoff relay set)")
        case let code:
            throw HandoffError(.connectionUnavailable, "the relay broker \(brokerName) refused the connection: \(String(cString: mosquitto_connack_string(code)))")
        }
    }

    /// Subscribes to `filter` with QoS 1.
    public func subscribe(_ filter: String) throws(HandoffError) {
        try check(mosquitto_subscribe(mosq, nil, filter, 1), "subscribe")
        inbox.subscribing += 1
    }

    /// Every SUBSCRIBE of this connection has its SUBACK.
    public var subscribed: Bool { inbox.subscribing > 0 && inbox.subacks >= inbox.subscribing }

    /// Publishes with QoS 1; `retain`: the broker keeps it for later subscribers.
    public func publish(_ topic: String, _ payload: [UInt8], retain: Bool) throws(HandoffError) {
        guard payload.count <= Self.maxMessageSize else {
            throw HandoffError(.invalidArgument, "a relay message is at most \(Self.maxMessageSize) bytes; this one has \(payload.count)")
        }
        try check(payload.withUnsafeBytes { mosquitto_publish(mosq, nil, topic, Int32(payload.count), $0.baseAddress, 1, retain) },
                  "publish")
    }

    /// Does the socket's work: reads what arrived (waiting at most
    /// `timeout` seconds for it), writes what is queued, keeps the
    /// connection alive. Throws `.connectionUnavailable` once the broker
    /// has gone (the owner reconnects with back-off).
    public func pump(timeout: Double) throws(HandoffError) {
        // Clamped before the conversion: .infinity or weeks would trap.
        let rc = mosquitto_loop(mosq, Int32(min(max(0, timeout), 3600) * 1000), 1)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw HandoffError(.connectionUnavailable, "lost the relay broker \(brokerName): \(Self.text(rc))")
        }
    }

    /// Whether bytes wait to be written.
    public var wantsWrite: Bool { mosquitto_want_write(mosq) }

    public var keepalive: Double { Double(options.keepalive) }

    /// One step of the socket's work without waiting: reads when
    /// `readable`, writes when `writable`, then the keepalive and retries
    /// (libmosquitto's loop_misc). Throws `.connectionUnavailable` once the
    /// broker has gone.
    public func service(readable: Bool, writable: Bool) throws(HandoffError) {
        var rc = MOSQ_ERR_SUCCESS.rawValue
        if readable { rc = mosquitto_loop_read(mosq, 1) }
        if rc == MOSQ_ERR_SUCCESS.rawValue && (writable || mosquitto_want_write(mosq)) { rc = mosquitto_loop_write(mosq, 1) }
        if rc == MOSQ_ERR_SUCCESS.rawValue { rc = mosquitto_loop_misc(mosq) }
        guard rc == MOSQ_ERR_SUCCESS.rawValue, inbox.disconnected == nil else {
            throw HandoffError(.connectionUnavailable, "lost the relay broker \(brokerName): \(rc == MOSQ_ERR_SUCCESS.rawValue ? "it closed the connection" : Self.text(rc))")
        }
    }

    /// The messages that arrived since the last call, in order.
    public func take() -> [Message] {
        defer { inbox.messages = [] }
        return inbox.messages
    }

    /// A clean DISCONNECT: the broker drops the Last Will. Written at once
    /// (after what was queued before it).
    public func disconnect() {
        mosquitto_disconnect(mosq)
        for _ in 0..<8 where mosquitto_want_write(mosq) {
            guard mosquitto_loop_write(mosq, 1) == MOSQ_ERR_SUCCESS.rawValue else { break }
        }
    }

    private func check(_ rc: Int32, _ what: String) throws(HandoffError) {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw HandoffError(.connectionUnavailable, "could not \(what) on the relay broker \(brokerName): \(Self.text(rc))")
        }
    }

    /// libmosquitto's text for an error, errno's for MOSQ_ERR_ERRNO.
    static func text(_ rc: Int32) -> String {
        rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : String(cString: mosquitto_strerror(rc))
    }

    private func secondsText(_ seconds: Double) -> String {
        seconds == seconds.rounded() && seconds < 1e9 ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    private func monotonicNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
