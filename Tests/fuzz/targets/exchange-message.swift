// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: ExchangeMessage(frame), every frame of the fetch exchange.
// Byte 0 is the frame type, the rest its payload. A message it accepts must
// give back exactly that frame.
@testable import HandoffContinuity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 1 else { return 0 }
    let frame = Frame(type: data[0], payload: Array(UnsafeBufferPointer(start: data + 1, count: size - 1)))
    guard let message = try? ExchangeMessage(frame) else { return 0 }
    precondition(message.frame == frame, "a message does not re-encode to its frame")
    return 0
}
