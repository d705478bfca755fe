// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: StreamFrameParser, the frames of a connection in stream mode,
// cut into reads as a socket would deliver them. The data handed on must be
// exactly the DATA payloads in order, and nothing follows END or a
// malformed frame.
@testable import HandoffContinuity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 2 else { return 0 }
    let cap = data[0] == 0 ? ChannelLimits().maxFrameSize : Int(data[0]) * 64
    var chunk = Int(data[1]) * 67 + 1
    let input = UnsafeBufferPointer(start: data + 2, count: size - 2)
    var parser = StreamFrameParser(maxFrameSize: cap)
    var delivered: [UInt8] = [], finished = false
    var offset = 0
    while offset < input.count {
        let n = min(chunk, input.count - offset)
        parser.parse(UnsafeBufferPointer(rebasing: input[offset..<(offset + n)])) { event in
            precondition(!finished, "an event after END or a malformed frame")
            switch event {
            case .data(let bytes):
                precondition(!bytes.isEmpty, "an empty data chunk")
                delivered += bytes
            case .end, .malformed:
                finished = true
            }
            return true
        }
        offset += n
        chunk = chunk * 5 % 16_411 + 1
    }
    // Every delivered byte came from a DATA frame: rebuild them from the input.
    var expected: [UInt8] = [], i = 0
    while i + 5 <= input.count {
        let n = Int(input[i]) << 24 | Int(input[i + 1]) << 16 | Int(input[i + 2]) << 8 | Int(input[i + 3])
        guard input[i + 4] == StreamFrame.data, n >= 2, n <= cap else { break }
        expected += input[(i + 5)..<min(input.count, i + 4 + n)]
        i += 4 + n
    }
    precondition(delivered == expected,
                 "delivered data differs from the DATA payloads")
    return 0
}
