// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: DocumentEntry.entries, the `documents` value of a payload a
// peer sent (PROTOCOL.md §12), decoded from a binary property list as the
// receiver decodes payloads. What it accepts holds to the rules (at most 8
// entries; a clean relative path whose last component is the name, for
// the places that have one) and writes back to the same entries.
import HandoffModel
@testable import HandoffContinuity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = UserInfoCoding.decodingLimits(canonicalSizeAtMost: ActivityCoding.maxPayloadSize)
    guard let value = try? BinaryPropertyList.decode(bytes, limits: limits),
          let entries = try? DocumentEntry.entries(value) else { return 0 }
    precondition(entries.count <= DocumentEntry.maxPerActivity, "more than 8 documents were read")
    for (_, entry) in entries {
        let location = entry.location
        precondition(location.place.hasRoot == (location.root != nil), "a root where none belongs, or none where one does")
        if let path = location.path {
            precondition(location.place.hasPath, "a path for a place without one")
            precondition(FileURL.cleanRelative(path, maxBytes: DocumentLocation.maxPathBytes) == path, "a path that can climb out: \(path)")
            precondition(path.split(separator: "/").last.map(String.init) == location.name, "a name that is not the path's last component")
        } else {
            precondition(!location.place.hasPath, "no path for a place that needs one")
        }
        precondition(!location.name.contains("/") && location.name != ".." && location.name != "." && !location.name.isEmpty,
                     "a name that can climb out: \(location.name)")
        precondition(entry.facts.sha256.count == 32 && entry.facts.size <= DocumentEntry.maxSize, "facts out of bounds")
        let again: DocumentEntry
        do {
            again = try DocumentEntry(propertyList: try BinaryPropertyList.decode(BinaryPropertyList.encode(entry.propertyList)))
        } catch {
            fatalError("an accepted entry writes to one that is refused: \(error)")
        }
        precondition(again == entry, "an entry changed through encode and decode")
    }
    return 0
}
