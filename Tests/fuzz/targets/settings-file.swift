// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: HandoffSettings(bytes:source:), the person's settings file
// as every engine reads it (docs/agent.md "Settings"). Any input gives
// settings or a thrown error, never a trap; settings read back from their
// own text are the same settings, and that text is stable.
import HandoffContinuity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let settings = try? HandoffSettings(bytes: bytes, source: "fuzz") else { return 0 }
    for (id, _) in settings.devices { precondition(HandoffSettings.isDeviceID(id)) }
    for app in settings.mutedApps { precondition(HandoffSettings.isBundleIdentifier(app)) }
    let text = settings.fileBytes
    guard let again = try? HandoffSettings(bytes: text, source: "fuzz") else {
        // Unknown keys are written back as read; one that only parsed in
        // its old place may not fit the bound: the only way back may fail.
        precondition(text.count > HandoffSettings.limits.maxBytes - 4096, "the settings' own text does not parse")
        return 0
    }
    precondition(again == settings, "the round trip changed the settings")
    precondition(again.fileBytes == text, "the text is not stable")
    return 0
}
