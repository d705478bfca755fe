// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
/// One broker message of a pipe (PROTOCOL.md §11 "Pipes"): a 32-byte
/// header (version, type, flags, pipe ID, seq, ack, window) and a payload.
/// Decoding is strict: every length is checked against the message's size
/// and the type's rule, and another version is refused, never guessed at.
public struct RelayPipeFrame: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        case open = 1, data = 2, ack = 3, close = 4, reset = 5

        /// OPEN, DATA and CLOSE take a sequence number; ACK and RESET do not.
        var isSequenced: Bool { self == .open || self == .data || self == .close }
    }

    public static let version: UInt8 = 1
    public static let headerSize = 32
    public static let maxPayload = 16_384
    public static let maxMessageSize = headerSize + maxPayload
    /// Flag: the receiver answers with an ACK at once.
    public static let answerFlag: UInt8 = 0x01

    public var kind: Kind
    public var answer: Bool
    public var pipe: RelayPipeID
    public var seq: UInt32
    public var ack: UInt32
    public var window: UInt32
    public var payload: [UInt8]

    public init(kind: Kind, answer: Bool = false, pipe: RelayPipeID, seq: UInt32, ack: UInt32, window: UInt32,
                payload: [UInt8] = []) {
        self.kind = kind
        self.answer = answer
        self.pipe = pipe
        self.seq = seq
        self.ack = ack
        self.window = window
        self.payload = payload
    }

    /// A RESET with its reason.
    public static func reset(pipe: RelayPipeID, seq: UInt32, ack: UInt32, window: UInt32, reason: RelayResetReason) -> RelayPipeFrame {
        RelayPipeFrame(kind: .reset, pipe: pipe, seq: seq, ack: ack, window: window,
                       payload: [UInt8(reason.rawValue >> 8), UInt8(reason.rawValue & 0xff)])
    }

    /// A RESET's reason (a code this revision does not know reads as
    /// `.protocolError`); nil for other kinds.
    public var resetReason: RelayResetReason? {
        guard kind == .reset, payload.count == 2 else { return nil }
        return RelayResetReason(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1])) ?? .protocolError
    }

    /// The payload length each kind allows.
    static func allows(_ kind: Kind, payloadCount n: Int) -> Bool {
        switch kind {
        case .data: n >= 1 && n <= maxPayload
        case .reset: n == 2
        case .open, .ack, .close: n == 0
        }
    }

    /// The message bytes. Precondition: the payload fits the kind (a
    /// programming error otherwise: frames are built by `RelayPipe`).
    public func encoded() -> [UInt8] {
        precondition(Self.allows(kind, payloadCount: payload.count), "a \(kind) frame cannot carry \(payload.count) bytes")
        var out: [UInt8] = []
        out.reserveCapacity(Self.headerSize + payload.count)
        out += [Self.version, kind.rawValue, answer ? Self.answerFlag : 0, 0]
        out += pipe.bytes
        for value in [seq, ack, window] {
            out += [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
        }
        return out + payload
    }

    /// Decodes one message of a pipe topic. `expectedPipe`: the topic's
    /// pipe ID, which the header must repeat. Returns the frame, or why it
    /// is dropped (`.oversized` or `.malformed`).
    public static func decode(_ bytes: [UInt8], expectedPipe: RelayPipeID? = nil) -> Result<RelayPipeFrame, RelayDropReason> {
        guard bytes.count <= maxMessageSize else { return .failure(.oversized) }
        guard bytes.count >= headerSize, bytes[0] == version, bytes[2] & ~answerFlag == 0, bytes[3] == 0,
              let kind = Kind(rawValue: bytes[1]), allows(kind, payloadCount: bytes.count - headerSize) else {
            return .failure(.malformed)
        }
        let pipe = RelayPipeID(bytes: Array(bytes[4..<20]))!
        if let expectedPipe, expectedPipe != pipe { return .failure(.malformed) }
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
        }
        let frame = RelayPipeFrame(kind: kind, answer: bytes[2] & answerFlag != 0, pipe: pipe, seq: u32(20), ack: u32(24),
                                   window: u32(28), payload: Array(bytes[headerSize...]))
        return .success(frame)
    }
}

/// Why a pipe was reset (the RESET frame's u16 reason).
public enum RelayResetReason: UInt16, Sendable, Equatable {
    /// The application stopped.
    case closed = 1
    /// Too many pipes.
    case refused = 2
    /// Nothing heard from the other side for the idle limit.
    case idle = 3
    /// Retransmissions exhausted.
    case unreachable = 4
    /// The other side sent a frame that cannot happen.
    case protocolError = 5
}

/// Why the relay dropped a message; each is counted and shown by
/// `handoff doctor` (PROTOCOL.md §11 "Limits").
public enum RelayDropReason: String, Sendable, CaseIterable, Error {
    case malformed = "malformed"
    case oversized = "oversized"
    case topicMismatch = "topic mismatch"
    case notAuthentic = "not authentic"
    case unknownPipe = "unknown pipe"
    case overRate = "over rate"
    /// A pipe frame outside the window, or acknowledging frames never sent.
    case outOfWindow = "out of window"
}
