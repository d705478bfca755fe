// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel

/// A message that arrived from the relay's broker.
public struct RelayBrokerMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var retained: Bool
    public init(topic: String, payload: [UInt8], retained: Bool) {
        self.topic = topic
        self.payload = payload
        self.retained = retained
    }
}

/// The MQTT Last Will a relay connection is made with (PROTOCOL.md §11
/// "Gone"): the device topic, retained, and a gone message sealed for it.
public struct RelayWill: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public init(topic: String, payload: [UInt8]) {
        self.topic = topic
        self.payload = payload
    }
}

/// One connection to the relay's broker, as `RelaySession` drives it: the
/// seam between the relay's logic (Session/, Pipes/: pure but for their
/// sockets, fuzzed and tested without a broker) and the MQTT client library
/// (`MQTTConnection` in MQTT/, the one file that uses libmosquitto). The session's thread is its only
/// user: it waits on `socket` itself and calls `service` when the socket
/// is ready or a keepalive is due, so one poll serves the broker and every
/// pipe (docs/agent.md §8).
public protocol RelayBroker: AnyObject {
    /// `host:port`, as messages name the broker.
    var brokerName: String { get }
    /// The socket to poll (-1 while not connected).
    var socket: Int32 { get }
    /// Whether bytes wait to be written (poll for POLLOUT too).
    var wantsWrite: Bool { get }
    /// Seconds between keepalives: `service` is due at least this often.
    var keepalive: Double { get }
    /// Messages dropped for their size or a full queue.
    var droppedMessages: Int { get }
    /// Connects and waits for the broker's answer within `timeout`.
    /// Throws `.permission` when it refuses the credentials,
    /// `.connectionUnavailable` otherwise.
    func connect(timeout: Double) throws(HandoffError)
    func subscribe(_ filter: String) throws(HandoffError)
    /// Whether the broker acknowledged every subscription asked for (its
    /// SUBACKs arrived); a client that cannot tell says true.
    var subscribed: Bool { get }
    /// QoS 1; `retain`: the broker keeps it for later subscribers.
    func publish(_ topic: String, _ payload: [UInt8], retain: Bool) throws(HandoffError)
    /// Reads when `readable`, writes when `writable`, and keeps the
    /// connection alive; never blocks. Throws `.connectionUnavailable`
    /// once the broker has gone.
    func service(readable: Bool, writable: Bool) throws(HandoffError)
    /// The messages that arrived since the last call, in order.
    func take() -> [RelayBrokerMessage]
    /// A clean DISCONNECT (the broker drops the Will), written at once.
    func disconnect()
}

extension RelayBroker {
    public var subscribed: Bool { true }
}
