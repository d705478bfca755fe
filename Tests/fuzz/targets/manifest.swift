// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: Manifest(infoPlist:), an app's Info.plist bytes, XML or
// binary. Any input gives a manifest or a thrown error, never a trap. A key
// repeated in one dictionary keeps its last value and an NSUserActivityTypes
// that is not an array declares none, each with a warning: so the reader
// of Info.plists accepts every document the strict reader of payloads
// accepts, as the same value and with no repeat reported.
import HandoffModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let manifest = try? Manifest(infoPlist: bytes) {
        precondition(!manifest.bundleIdentifier.isEmpty && !manifest.teamIdentifier.isEmpty)
        precondition(manifest.warnings.allSatisfy { $0.hasPrefix("Info.plist: ") })
        precondition(manifest.activityTypes.allSatisfy(manifest.declares))
    }
    let strict = BinaryPropertyList.hasMagic(bytes) ? try? BinaryPropertyList.decode(bytes)
        : XMLPropertyList.looksLikeXML(bytes) ? try? XMLPropertyList.decode(bytes) : nil
    if let strict {
        guard let lenient = try? PropertyListFile.decode(bytes) else {
            preconditionFailure("the strict reader accepts what the Info.plist reader refuses")
        }
        precondition(lenient.repeats.isEmpty)
        // Compared as encoded: a NaN real is not equal to itself.
        precondition(BinaryPropertyList.encode(lenient.value) == BinaryPropertyList.encode(strict))
    }
    return 0
}
