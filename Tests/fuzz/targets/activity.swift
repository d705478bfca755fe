// Fuzz target: ActivityCoding.decode, what a receiver does with the payload
// a sender answers to a fetch (and handoff_activity_decode). An activity it
// accepts must encode, when the encoder takes it, to a payload that decodes
// to the same encoding again.
import HandoffModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let activity = try? ActivityCoding.decode(bytes),
          let encoded = try? ActivityCoding.encode(activity) else { return 0 }
    guard let again = try? ActivityCoding.decode(encoded) else {
        fatalError("an activity the decoder accepted encodes to a payload it refuses")
    }
    precondition((try? ActivityCoding.encode(again)) == encoded, "an activity changed through encode and decode")
    return 0
}
