// Fuzz target: UserInfoCoding.decode, the userInfo of a payload (and
// handoff_value_decode). A userInfo it accepts must encode to bytes that
// decode to the same encoding again.
import HandoffModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let userInfo = try? UserInfoCoding.decode(bytes) else { return 0 }
    let encoded = UserInfoCoding.encode(userInfo)
    guard let again = try? UserInfoCoding.decode(encoded) else {
        fatalError("a userInfo the decoder accepted encodes to bytes it refuses")
    }
    precondition(UserInfoCoding.encode(again) == encoded, "a userInfo changed through encode and decode")
    return 0
}
