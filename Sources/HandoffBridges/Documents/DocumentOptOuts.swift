// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// What the person opted out of (docs/documents.md §5, §7): the folders
/// excluded, whether files outside every place may be offered, and the
/// apps whose documents are never offered. The bridge takes them from the
/// settings file as every engine reads it (`HandoffSettings`).
public struct DocumentOptOuts: Sendable, Equatable {
    public var excluded: [String] = []
    public var elsewhere = false
    /// Bundle ids (desktop entry ids without `.desktop`) whose documents stay here.
    public var appsOff: Set<String> = []

    public init(excluded: [String] = [], elsewhere: Bool = false, appsOff: Set<String> = []) {
        self.excluded = excluded
        self.elsewhere = elsewhere
        self.appsOff = appsOff
    }
}
