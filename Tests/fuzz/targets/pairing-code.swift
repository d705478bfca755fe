// Fuzz target: PairingCode.decode, what a person types or pastes (`account
// join CODE`, handoff_account_join). A code it accepts must be the code of
// the key it gives, up to the forgiveness it allows (case, O/I/L, spacing).
@testable import HandoffContinuity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let key = try? PairingCode.decode(text) else { return 0 }
    precondition(key.count == AccountKey.size, "a pairing code gave a key of \(key.count) bytes")
    precondition((try? PairingCode.decode(PairingCode.encode(key))) == key, "a key's own code does not decode to it")
    return 0
}
