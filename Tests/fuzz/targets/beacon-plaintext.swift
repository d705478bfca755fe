// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: BeaconCodec.parse, a beacon's plaintext once the packet has
// authenticated. The encoding is canonical but for what a later revision
// may add (extensions, optional flags; docs/PROTOCOL.md §10): whatever
// parses without those encodes to exactly the same bytes, and whatever
// parses with them encodes to a plaintext that parses to the same beacon.
@testable import HandoffContinuity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let (beacon, ignored) = BeaconCodec.parseIgnoring(bytes) else { return 0 }
    guard let encoded = try? BeaconCodec.encode(beacon) else {
        fatalError("a parsed beacon does not encode")
    }
    if ignored {
        precondition(encoded.count <= bytes.count, "a beacon grew by losing what it ignored")
        precondition(BeaconCodec.parseIgnoring(encoded).map { $0.beacon == beacon && !$0.ignored } == true,
                     "a beacon without its extensions parses to another beacon")
    } else {
        precondition(encoded == bytes, "a parsed beacon encodes to other bytes: the encoding is not canonical")
    }
    return 0
}
