// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import HandoffRuntime

/// The local protocol's datagram (docs/agent.md §3): an 8-byte header —
/// version, type, flags (0), request id (u32 big-endian) — and a body that
/// is empty or a binary property list dictionary.
public struct AgentFrame: Sendable, Equatable {
    public static let version = 1
    public static let headerSize = 8
    /// Largest datagram either side sends or accepts: the largest payload
    /// (`ActivityCoding.maxPayloadSize`, 65,536 bytes) and 1 KiB for the
    /// header and the rest of PAYLOAD's body, so that whatever the embedded
    /// engine carries the agent carries too.
    public static let maxSize = ActivityCoding.maxPayloadSize + 1024

    public var message: AgentMessage
    /// Non-zero on requests and their replies; 0 on events.
    public var requestID: UInt32

    public init(_ message: AgentMessage, requestID: UInt32 = 0) {
        self.message = message
        self.requestID = requestID
    }

    /// The datagram. Throws `.invalidValue` when the body would not fit
    /// in one (never a payload `ActivityCoding` accepts, nor a HELLO of a
    /// valid manifest); never
    /// for a message `init(decoding:from:)` accepted.
    public func encoded() throws(HandoffError) -> [UInt8] {
        let body = AgentBodyCoding.body(of: message)
        var out: [UInt8] = [UInt8(Self.version), message.kind.rawValue, 0, 0]
        withUnsafeBytes(of: requestID.bigEndian) { out += $0 }
        if let body, !body.isEmpty { out += BinaryPropertyList.encode(.dictionary(body)) }
        guard out.count <= Self.maxSize else {
            throw HandoffError(.invalidValue, "an agent message is at most \(Self.maxSize) bytes (this one: \(out.count))")
        }
        return out
    }

    /// Reads a datagram `sender` sent. Throws `.malformedData` for a wrong
    /// version, flags, size or body, a type `sender` may not send, and a
    /// type this side does not know (`unknownType` tells those apart: they
    /// are answered with ERROR, the rest close the connection).
    public init(decoding bytes: [UInt8], from sender: AgentMessage.Sender) throws(AgentFrameError) {
        guard bytes.count >= Self.headerSize, bytes.count <= Self.maxSize else {
            throw .malformed("an agent message is 8 to \(Self.maxSize) bytes, not \(bytes.count)")
        }
        guard bytes[0] == Self.version else {
            throw .malformed("agent protocol version \(bytes[0]); this side speaks \(Self.version)")
        }
        guard bytes[2] == 0, bytes[3] == 0 else { throw .malformed("agent message flags must be 0") }
        let requestID = bytes[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard let kind = AgentMessage.Kind(rawValue: bytes[1]) else { throw .unknownType(bytes[1], requestID: requestID) }
        guard AgentMessage.allowed(kind, from: sender) else {
            throw .malformed("message type \(kind) is not sent by the \(sender)")
        }
        var body: [String: PropertyListValue] = [:]
        if bytes.count > Self.headerSize {
            let limits = DecodingLimits(maxDepth: 8, maxObjects: 16_384, maxBytes: Self.maxSize)
            let value: PropertyListValue
            do {
                value = try BinaryPropertyList.decode(Array(bytes[Self.headerSize...]), limits: limits)
            } catch {
                throw .malformed("agent message body: \(error)")
            }
            guard case .dictionary(let d) = value else { throw .malformed("an agent message body is a dictionary") }
            body = d
        }
        let isRequest = requestID != 0
        do {
            message = try AgentBodyCoding.message(kind, body, from: sender)
        } catch {
            throw .malformed("\(kind): \(error.message)")
        }
        guard isRequest == AgentFrame.needsRequestID(message) else {
            throw .malformed(isRequest ? "\(kind) is an event: its request id is 0" : "\(kind) needs a request id")
        }
        // Shared objects and short references on the wire can stand for
        // more than a datagram written out as `encoded()` writes it: refuse
        // what could not be passed on as it is.
        if let body = AgentBodyCoding.body(of: message),
           BinaryPropertyList.canonicalSize(of: .dictionary(body), atMost: Self.maxSize - Self.headerSize) == nil {
            throw .malformed("\(kind): the body is over \(Self.maxSize - Self.headerSize) bytes written out")
        }
        self.requestID = requestID
    }

    /// Requests and replies carry an id; events carry 0.
    static func needsRequestID(_ message: AgentMessage) -> Bool {
        switch message {
        case .advertise, .remote, .confirm, .continued, .continueActivity, .undelivered, .offer, .served, .index, .bringing: false
        default: true
        }
    }
}

/// Why a datagram was refused.
public enum AgentFrameError: Error, Sendable, Equatable {
    /// Close the connection.
    case malformed(String)
    /// A type this side does not know: answer ERROR, keep the connection.
    case unknownType(UInt8, requestID: UInt32)

    public var message: String {
        switch self {
        case .malformed(let m): m
        case .unknownType(let t, _): "unknown agent message type \(t)"
        }
    }
}
