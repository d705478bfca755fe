// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: Manifest(infoPlist:), an app's Info.plist bytes, XML or
// binary. Any input gives a manifest or a thrown error, never a trap.
import HandoffModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let manifest = try? Manifest(infoPlist: bytes) {
        precondition(!manifest.bundleIdentifier.isEmpty && !manifest.teamIdentifier.isEmpty)
    }
    return 0
}
