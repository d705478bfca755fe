// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: PairingCode.decode, what a person types or pastes (`account
// join CODE`, handoff_account_join). A code it accepts must be the code of
// the key it gives, up to the forgiveness it allows (case, O/I/L, spacing).
// The same text is tried as a one-time pairing code (`pair --code`): one
// it accepts is eight digits whose check digit holds, and reads back.
@testable import HandoffContinuity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let code = try? OneTimeCode(typed: text) {
        precondition(code.digits.utf8.count == 8 && OneTimeCode.damm(code.digits) == 0, "a one-time code that does not check")
        precondition((try? OneTimeCode(typed: code.description)) == code, "a one-time code does not read back")
    }
    guard let key = try? PairingCode.decode(text) else { return 0 }
    precondition(key.count == AccountKey.size, "a pairing code gave a key of \(key.count) bytes")
    precondition((try? PairingCode.decode(PairingCode.encode(key))) == key, "a key's own code does not decode to it")
    return 0
}
