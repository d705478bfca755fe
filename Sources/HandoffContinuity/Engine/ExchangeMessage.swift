// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The frames of the fetch exchange (docs/PROTOCOL.md, "Exchange").
enum ExchangeMessage: Equatable {
    /// Receiver → sender: hand over this activity.
    case fetch(ActivityID)
    /// Sender → receiver: the activity payload (a binary property list).
    case payload([UInt8])
    /// Either way: the request failed with a user-activity error.
    case error(code: Int32, message: String)
    /// Receiver → sender: the activity was continued.
    case confirm(ActivityID)
    /// Receiver → sender: open a continuation stream for this activity on
    /// this connection. Answered by `streamAccepted` or `error`.
    case streamOpen(ActivityID)
    /// Sender → receiver: from the next byte on, the connection carries
    /// the stream (docs/PROTOCOL.md, "Continuation streams").
    case streamAccepted
    /// Receiver → sender (revision 4): send the bytes of the document of
    /// this activity with this SHA-256 (PROTOCOL.md §12).
    case documentOpen(ActivityID, sha256: [UInt8])
    /// Sender → receiver (revision 4): this many bytes follow as DATA
    /// frames, then END.
    case documentAccepted(size: UInt64)

    enum Kind: UInt8 {
        case fetch = 1, payload = 2, error = 3, confirm = 4, streamOpen = 5, streamAccepted = 6
        case documentOpen = 9, documentAccepted = 10

        /// The revision a connection must have agreed for this frame.
        var revision: Int { rawValue >= 9 ? 4 : 1 }
    }

    /// The revision a connection must have agreed to carry this message.
    var revision: Int {
        switch self {
        case .documentOpen, .documentAccepted: Kind.documentOpen.revision
        default: 1
        }
    }

    /// Longest error message carried, in UTF-8 bytes.
    static let maxMessage = 1024

    var frame: Frame {
        switch self {
        case .fetch(let id): Frame(type: Kind.fetch.rawValue, payload: id.bytes)
        case .payload(let bytes): Frame(type: Kind.payload.rawValue, payload: bytes)
        case .confirm(let id): Frame(type: Kind.confirm.rawValue, payload: id.bytes)
        case .streamOpen(let id): Frame(type: Kind.streamOpen.rawValue, payload: id.bytes)
        case .streamAccepted: Frame(type: Kind.streamAccepted.rawValue, payload: [])
        case .documentOpen(let id, let sha256): Frame(type: Kind.documentOpen.rawValue, payload: id.bytes + sha256)
        case .documentAccepted(let size):
            Frame(type: Kind.documentAccepted.rawValue, payload: withUnsafeBytes(of: size.bigEndian, Array.init))
        case .error(let code, let message):
            Frame(type: Kind.error.rawValue, payload: withUnsafeBytes(of: UInt32(bitPattern: code).bigEndian, Array.init)
                  + Array(truncateUTF8(message, to: Self.maxMessage).utf8))
        }
    }

    /// Reads a frame of a connection that agreed on `revision`; throws
    /// `.malformedData` for anything unknown, of a later revision, or broken.
    init(_ frame: Frame, revision: Int = ProtocolRevision.current) throws(HandoffError) {
        let kind = Kind(rawValue: frame.type).flatMap { $0.revision <= revision ? $0 : nil }
        switch kind {
        case .fetch?, .confirm?, .streamOpen?:
            guard frame.payload.count == 16 else { throw HandoffError(.malformedData, "an activity id is 16 bytes") }
            let id = ActivityID(bytes: frame.payload)
            switch kind {
            case .fetch?: self = .fetch(id)
            case .confirm?: self = .confirm(id)
            default: self = .streamOpen(id)
            }
        case .streamAccepted?:
            guard frame.payload.isEmpty else { throw HandoffError(.malformedData, "a stream acceptance carries nothing") }
            self = .streamAccepted
        case .documentOpen?:
            guard frame.payload.count == 48 else { throw HandoffError(.malformedData, "a document request is 16 bytes of activity id and 32 of SHA-256") }
            self = .documentOpen(ActivityID(bytes: Array(frame.payload[0..<16])), sha256: Array(frame.payload[16...]))
        case .documentAccepted?:
            guard frame.payload.count == 8 else { throw HandoffError(.malformedData, "a document acceptance is a u64 size") }
            self = .documentAccepted(size: frame.payload.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        case .payload?:
            self = .payload(frame.payload)
        case .error?:
            guard frame.payload.count >= 4, frame.payload.count <= 4 + Self.maxMessage,
                  let message = String(validating: frame.payload[4...], as: UTF8.self) else {
                throw HandoffError(.malformedData, "malformed error frame")
            }
            let code = frame.payload[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            self = .error(code: Int32(bitPattern: code), message: message)
        case nil:
            throw HandoffError(.malformedData, "unknown frame type \(frame.type)")
        }
    }
}
