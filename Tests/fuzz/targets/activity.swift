// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: ActivityCoding.decode, what a receiver does with the payload
// a sender answers to a fetch (and handoff_activity_decode). An activity it
// accepts must encode (its userInfo within the budget, the payload within
// the payload limit) to a payload that decodes to the same activity: the
// same encoding again.
import HandoffModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let activity = try? ActivityCoding.decode(bytes) else { return 0 }
    let encoded: [UInt8]
    do {
        encoded = try ActivityCoding.encode(activity)
    } catch {
        fatalError("an activity the decoder accepted does not encode: \(error)")
    }
    let userInfoSize = UserInfoCoding.encode(activity.userInfo).count
    precondition(userInfoSize <= UserInfoRules.payloadBudget,
                 "an accepted activity's userInfo encodes to \(userInfoSize) bytes, over the budget")
    precondition(encoded.count <= ActivityCoding.maxPayloadSize, "an accepted activity encodes over the payload limit")
    let again: UserActivity
    do {
        again = try ActivityCoding.decode(encoded)
    } catch {
        fatalError("an activity the decoder accepted encodes to a payload it refuses: \(error)")
    }
    precondition((try? ActivityCoding.encode(again)) == encoded, "an activity changed through encode and decode")
    return 0
}
