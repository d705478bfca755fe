// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: the channel's frame reader (FrameInbox, private to
// ChannelConnection.swift) as a connection drives it: bytes arrive in
// reads of at most one TLS record, and after each read every complete
// frame is taken until it needs more or refuses a length over the cap.
// The frames taken must re-encode to exactly the bytes consumed, and each
// goes on to ExchangeMessage as the exchange does.
@_private(sourceFile: "ChannelConnection.swift") @testable import HandoffContinuity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 2 else { return 0 }
    // Byte 0: the frame cap (small caps reach the refusal path);
    // byte 1: how the stream is cut into reads.
    let cap = data[0] == 0 ? ChannelLimits().maxFrameSize : Int(data[0]) * 16
    var chunk = Int(data[1]) * 67 + 1
    let input = UnsafeBufferPointer(start: data + 2, count: size - 2)
    let inbox = FrameInbox()
    var offset = 0, consumed: [UInt8] = []
    reading: while offset < input.count {
        let n = min(chunk, FrameInbox.scratchSize, input.count - offset)
        inbox.scratch.update(from: input.baseAddress! + offset, count: n)
        inbox.append(count: n)
        offset += n
        chunk = chunk * 5 % 16_411 + 1
        while true {
            switch inbox.nextFrame(maxFrameSize: cap) {
            case .frame(let frame):
                precondition(frame.length >= 1 && frame.length <= cap, "a frame over the cap was returned")
                consumed += frame.encoded()
                _ = try? ExchangeMessage(frame)
            case .badLength(let n):
                precondition(n == 0 || n > cap, "a length within the cap was refused")
                break reading
            case .needMore:
                continue reading
            }
        }
    }
    precondition(consumed.elementsEqual(input.prefix(consumed.count)), "frames differ from the bytes they came from")
    return 0
}
