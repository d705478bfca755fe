// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: RelayDeviceTopicReader.read, a message anyone allowed to
// publish on the broker may put under a device topic (PROTOCOL.md §11
// "Beacons on the relay", "Gone"). The input is tried twice: as the
// message (which must not be accepted: the fuzzer does not know the
// keys), and as a gone plaintext sealed under the gone key, which must
// read exactly when its plaintext parses and names the topic's device.
@testable import HandoffContinuity
@testable import HandoffRelay

let account = try! AccountKey(bytes: Array(0..<32))
let topics = RelayTopics(accountKey: account)
let peer: [UInt8] = Array(0xA0...0xAF)
let peerTag = topics.deviceTag(peer)
let nonce: [UInt8] = Array(repeating: 7, count: AESGCM.nonceSize)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var reader = RelayDeviceTopicReader(account: account, ownDeviceID: Array(0x10...0x1F), now: 0)
    if bytes.count < AESGCM.nonceSize || Array(bytes[0..<AESGCM.nonceSize]) != nonce {
        if case .success(let message) = reader.read(bytes, deviceTag: peerTag, now: 0) {
            preconditionFailure("a message was read without the keys: \(message)")
        }
    }
    let sealed = AESGCM(key: topics.goneKey).seal(bytes, aad: RelayGoneMessage.associatedData, nonce: nonce)
    let parsed = RelayGoneMessage.parse(bytes)
    let result = reader.read(sealed, deviceTag: peerTag, now: 0)
    if let parsed, parsed.deviceID == peer {
        precondition(result == .success(.gone(parsed)), "a genuine gone message was not read")
        precondition(parsed.encoded() == bytes, "a gone message is not canonical")
    } else if case .success = result {
        preconditionFailure("a gone message that does not parse, or names another device, was read")
    }
    return 0
}
