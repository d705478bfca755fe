// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: BinaryPropertyList.decode, the reader every payload and
// userInfo goes through. Whatever it accepts, the writer must write in a
// form the reader reads back to the same bytes (values are compared as
// bytes: a NaN real is not equal to itself). Values whose references
// expand them past a few thousand nodes are not re-encoded: writing them
// out costs what the reader's sharing saved, and the reader's own limits
// are what this target tests.
import HandoffModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let value = try? BinaryPropertyList.decode(bytes), isSmall(value) else { return 0 }
    let written = BinaryPropertyList.encode(value)
    guard let reread = try? BinaryPropertyList.decode(written) else {
        fatalError("the writer's bytes for a decoded value do not decode")
    }
    precondition(BinaryPropertyList.encode(reread) == written, "a decoded value changed through encode and decode")
    return 0
}

/// At most 4096 nodes and 1 MB of strings and data, counted as written out.
func isSmall(_ root: PropertyListValue) -> Bool {
    var nodes = 0, bytes = 0, stack = [root]
    while let value = stack.popLast() {
        nodes += 1
        switch value {
        case .string(let s): bytes += s.utf8.count
        case .data(let d): bytes += d.count
        case .array(let items): stack += items
        case .dictionary(let d): nodes += d.count; stack += d.values
        default: break
        }
        if nodes > 4096 || bytes > 1 << 20 { return false }
    }
    return true
}
