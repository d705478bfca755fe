// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffContinuity
@testable import HandoffRelay
import Testing

/// The pipe frame codec (PROTOCOL.md §11 "Pipes"): strict about every
/// length, the version, the reserved bits and the topic's pipe ID.
@Suite struct RelayPipeFrameTests {
    static let id = RelayPipeID(bytes: Array(0xC0...0xCF))!

    static func decode(_ bytes: [UInt8]) -> Result<RelayPipeFrame, RelayDropReason> {
        RelayPipeFrame.decode(bytes, expectedPipe: id)
    }

    @Test func everyKindRoundTrips() throws {
        let frames = [
            RelayPipeFrame(kind: .open, pipe: Self.id, seq: 0, ack: 0, window: 65536),
            RelayPipeFrame(kind: .data, answer: true, pipe: Self.id, seq: 7, ack: 3, window: 1, payload: Array(repeating: 0xAB, count: 16_384)),
            RelayPipeFrame(kind: .ack, pipe: Self.id, seq: 8, ack: 4, window: 0),
            RelayPipeFrame(kind: .close, pipe: Self.id, seq: UInt32.max - 1, ack: UInt32.max, window: UInt32.max),
            RelayPipeFrame.reset(pipe: Self.id, seq: 1, ack: 1, window: 0, reason: .refused),
        ]
        for frame in frames {
            #expect(try Self.decode(frame.encoded()).get() == frame)
        }
    }

    @Test func anOversizedMessageIsRefusedBeforeAnyParse() {
        let big = RelayPipeFrame(kind: .data, pipe: Self.id, seq: 1, ack: 0, window: 0, payload: Array(repeating: 1, count: 16_384)).encoded()
        #expect(big.count == RelayPipeFrame.maxMessageSize)
        #expect(Self.decode(big + [0]) == .failure(.oversized))
    }

    @Test func anotherVersionIsRefused() {
        var bytes = RelayPipeFrame(kind: .ack, pipe: Self.id, seq: 1, ack: 1, window: 1).encoded()
        for version: UInt8 in [0, 2, 255] {
            bytes[0] = version
            #expect(Self.decode(bytes) == .failure(.malformed))
        }
    }

    @Test func reservedBitsUnknownKindsAndWrongLengthsAreRefused() {
        let ack = RelayPipeFrame(kind: .ack, pipe: Self.id, seq: 1, ack: 1, window: 1).encoded()
        var bad: [[UInt8]] = []
        for kind: UInt8 in [0, 6, 255] { var b = ack; b[1] = kind; bad.append(b) }
        for flags: UInt8 in [0x02, 0x80, 0xFF] { var b = ack; b[2] = flags; bad.append(b) }
        var zero = ack; zero[3] = 1; bad.append(zero)
        bad.append(Array(ack.prefix(31)))  // a short header
        bad.append([])
        bad.append(ack + [0])  // an ACK with a payload
        var emptyData = ack; emptyData[1] = RelayPipeFrame.Kind.data.rawValue; bad.append(emptyData)
        var shortReset = ack; shortReset[1] = RelayPipeFrame.Kind.reset.rawValue; bad.append(shortReset + [1])
        var longReset = ack; longReset[1] = RelayPipeFrame.Kind.reset.rawValue; bad.append(longReset + [0, 1, 2])
        var openData = ack; openData[1] = RelayPipeFrame.Kind.open.rawValue; bad.append(openData + [1])
        for bytes in bad {
            #expect(Self.decode(bytes) == .failure(.malformed), "\(bytes.prefix(4))")
        }
    }

    @Test func aFrameForAnotherPipeOnThisTopicIsRefused() throws {
        let other = RelayPipeID(bytes: Array(repeating: 1, count: 16))!
        let bytes = RelayPipeFrame(kind: .ack, pipe: other, seq: 1, ack: 1, window: 1).encoded()
        #expect(Self.decode(bytes) == .failure(.malformed))
        #expect(try RelayPipeFrame.decode(bytes).get().pipe == other)
    }

    @Test func anUnknownResetReasonReadsAsProtocol() throws {
        var bytes = RelayPipeFrame.reset(pipe: Self.id, seq: 1, ack: 1, window: 0, reason: .idle).encoded()
        bytes[33] = 99
        #expect(try Self.decode(bytes).get().resetReason == .protocolError)
    }
}
