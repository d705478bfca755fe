// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: UserInfoJSON.decode, the JSON text a binding hands the
// library (handoff_value_decode_json). What it accepts keeps the userInfo
// rules, writes back as JSON, and that text reads back to the same value
// and writes to the same text again; its tagged form (the command's) reads
// back to the same value too.
import HandoffModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let value = try? UserInfoJSON.decode(bytes) else { return 0 }
    do {
        try UserInfoRules.check(value)
    } catch {
        fatalError("the reader accepted a value that breaks a rule: \(error)")
    }
    let text: [UInt8]
    do {
        text = try UserInfoJSON.encode(value)
    } catch {
        fatalError("a value the reader accepted does not write back: \(error)")
    }
    guard let again = try? UserInfoJSON.decode(text) else { fatalError("the writer's text is refused") }
    precondition(again == value, "a value changed through JSON and back")
    precondition((try? UserInfoJSON.encode(again)) == text, "the writer's text is not stable")
    precondition((try? UserInfoJSON.decode(UserInfoJSON.encodeTagged(value))) == value, "the tagged form reads back otherwise")
    return 0
}
