// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: UserInfoCoding.decode, the userInfo of a payload. A userInfo
// it accepts must encode within the 3072-byte budget (the receiver measured
// it as it will be written) to bytes that decode to the same value: the same
// encoding again.
import HandoffModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let userInfo = try? UserInfoCoding.decode(bytes) else { return 0 }
    let encoded = UserInfoCoding.encode(userInfo)
    precondition(encoded.count <= UserInfoRules.payloadBudget,
                 "a userInfo the decoder accepted encodes to \(encoded.count) bytes, over the budget")
    precondition(UserInfoCoding.canonicalCost(of: userInfo).encodedSize == encoded.count,
                 "canonicalCost(of:) is not the size of the encoding")
    let again: UserInfo
    do {
        again = try UserInfoCoding.decode(encoded)
    } catch {
        fatalError("a userInfo the decoder accepted encodes to bytes it refuses: \(error)")
    }
    precondition(UserInfoCoding.encode(again) == encoded, "a userInfo changed through encode and decode")
    return 0
}
