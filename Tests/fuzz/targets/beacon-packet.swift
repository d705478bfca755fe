// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: BeaconCodec.open, a UDP packet from anyone on the LAN.
// The input is tried twice: as a packet (which must not open: the fuzzer
// does not know the key), and as a plaintext sealed under the key, which
// must open to exactly what parsing the plaintext gives.
@testable import HandoffContinuity

let key: [UInt8] = Array(0..<32)
let nonce: [UInt8] = Array(repeating: 7, count: AESGCM.nonceSize)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // A packet sealed under this key with this nonce could open: skip those.
    if bytes.count < AESGCM.nonceSize || Array(bytes[0..<AESGCM.nonceSize]) != nonce {
        precondition(BeaconCodec.open(bytes, key: key) == nil, "a packet opened without the key")
    }
    let packet = AESGCM(key: key).seal(bytes, aad: BeaconCodec.associatedData, nonce: nonce)
    precondition(BeaconCodec.open(packet, key: key) == (packet.count <= BeaconCodec.maxPacketSize ? BeaconCodec.parse(bytes) : nil),
                 "opening an authentic packet disagrees with parsing its plaintext")
    return 0
}
