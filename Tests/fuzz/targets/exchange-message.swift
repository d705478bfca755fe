// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: ExchangeMessage(frame), every frame of the fetch exchange,
// read as a connection of revision 3 and of revision 4 reads it. Byte 0 is
// the frame type, the rest its payload. A message it accepts must give
// back exactly that frame; revision 3 refuses what only revision 4 has
// (DOCUMENT_OPEN, DOCUMENT_ACCEPTED) and reads the rest alike.
@testable import HandoffContinuity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 1 else { return 0 }
    let frame = Frame(type: data[0], payload: Array(UnsafeBufferPointer(start: data + 1, count: size - 1)))
    let old = try? ExchangeMessage(frame, revision: 3)
    guard let message = try? ExchangeMessage(frame, revision: 4) else {
        precondition(old == nil, "revision 3 reads a frame revision 4 refuses")
        return 0
    }
    precondition(message.frame == frame, "a message does not re-encode to its frame")
    if message.revision > 3 {
        precondition(old == nil, "revision 3 reads a frame of revision \(message.revision)")
    } else {
        precondition(old == message, "revisions 3 and 4 read a frame differently")
    }
    return 0
}
