// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffModel
@testable import HandoffContinuity
import Testing

/// The stream-mode framing (docs/PROTOCOL.md §8) and the stream requests
/// of the exchange.
@Suite struct StreamFrameTests {
    /// Everything the parser reports for `bytes` fed in pieces of `split`.
    private func events(_ bytes: [UInt8], split: Int, maxFrameSize: Int = 65_536) -> (data: [UInt8], end: Bool, malformed: Bool) {
        var parser = StreamFrameParser(maxFrameSize: maxFrameSize)
        var data: [UInt8] = [], end = false, malformed = false
        var i = 0
        while i < bytes.count {
            let piece = Array(bytes[i..<min(bytes.count, i + split)])
            piece.withUnsafeBufferPointer { p in
                parser.parse(p) { event in
                    switch event {
                    case .data(let chunk): data += Array(chunk)
                    case .end: end = true
                    case .malformed: malformed = true
                    }
                    return true
                }
            }
            i += split
        }
        return (data, end, malformed)
    }

    private func frame(_ type: UInt8, _ payload: [UInt8]) -> [UInt8] {
        Frame(type: type, payload: payload).encoded()
    }

    @Test(arguments: [1, 2, 5, 7, 4096, 100_000])
    func dataAndEndSurviveAnySplit(_ split: Int) {
        let payload = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let wire = frame(StreamFrame.data, Array(payload[..<16_379])) + frame(StreamFrame.data, Array(payload[16_379...]))
            + frame(StreamFrame.end, [])
        let got = events(wire, split: split)
        #expect(got.data == payload && got.end && !got.malformed)
    }

    @Test func nothingIsReportedAfterEnd() {
        let got = events(frame(StreamFrame.end, []) + frame(StreamFrame.data, [1, 2, 3]), split: 64)
        #expect(got.end && got.data.isEmpty && !got.malformed)
    }

    @Test(arguments: [
        [0, 0, 0, 1, 7],                  // DATA with no byte
        [0, 0, 0, 2, 8, 0],               // END with a payload
        [0, 0, 0, 2, 1, 0],               // an exchange frame in stream mode
        [0, 0, 0, 0, 7],                  // N = 0
        [0xff, 0xff, 0xff, 0xff, 7],      // N over the limit, refused before any payload
    ] as [[UInt8]])
    func malformedFramesStopTheStream(_ wire: [UInt8]) {
        let got = events(wire + frame(StreamFrame.data, [9]), split: 3)
        #expect(got.malformed && got.data.isEmpty && !got.end)
    }

    @Test func aDataFrameFillsOneTLSRecord() {
        #expect(StreamFrame.headerSize + StreamFrame.maxDataPerFrame == 16_384)  // 4-byte N + type + data
        var header = [UInt8](repeating: 0, count: 5)
        header.withUnsafeMutableBytes { StreamFrame.writeHeader(StreamFrame.data, payloadCount: 16_379, to: $0.baseAddress!) }
        #expect(header == [0x00, 0x00, 0x3f, 0xfc, 0x07])  // N = type byte + 16379
    }

    @Test func streamRequestsRoundTrip() throws {
        let id = ActivityID()
        #expect(try ExchangeMessage(ExchangeMessage.streamOpen(id).frame) == .streamOpen(id))
        #expect(try ExchangeMessage(ExchangeMessage.streamAccepted.frame) == .streamAccepted)
        #expect(ExchangeMessage.streamOpen(id).frame.type == 5 && ExchangeMessage.streamAccepted.frame.type == 6)
        #expect(throws: HandoffError.self) { try ExchangeMessage(Frame(type: 6, payload: [0])) }
        #expect(throws: HandoffError.self) { try ExchangeMessage(Frame(type: 5, payload: [1, 2, 3])) }
    }
}
