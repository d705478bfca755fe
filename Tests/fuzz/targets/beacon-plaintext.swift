// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: BeaconCodec.parse, a beacon's plaintext once the packet has
// authenticated. The encoding is canonical: whatever parses must encode to
// exactly the same bytes.
@testable import HandoffContinuity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let beacon = BeaconCodec.parse(bytes) else { return 0 }
    guard let encoded = try? BeaconCodec.encode(beacon) else {
        fatalError("a parsed beacon does not encode")
    }
    precondition(encoded == bytes, "a parsed beacon encodes to other bytes: the encoding is not canonical")
    return 0
}
