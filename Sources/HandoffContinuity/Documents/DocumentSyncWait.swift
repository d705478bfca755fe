// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase

/// Waiting for a sync that is catching up (docs/documents.md §4 step 3):
/// until the file at `slot` has `facts`' content or `deadline` passes.
public enum DocumentSyncWait {
    /// True once the file there has the same content; false at the
    /// deadline or when `cancel` becomes readable.
    public static func wait(for slot: DocumentSlot, toMatch facts: DocumentFacts,
                            until deadline: Double, cancel: Int32? = nil) -> Bool {
        slot.facts()?.sameContent(as: facts) == true
    }
}
