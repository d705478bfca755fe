// SPDX-License-Identifier: MIT OR Apache-2.0
/// Why bytes are not a binary property list the decoder accepts.
///
/// `reason` names the rule that was broken and the numbers involved, e.g.
/// "object reference 9 is out of range (7 objects)". It is meant for logs
/// and error messages, not for matching in code.
public struct PropertyListError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The bytes break the format's rules.
        case malformed
        /// The value is well formed as far as it was read, but it is larger
        /// than `DecodingLimits.maxObjects` or `maxBytes` allow.
        case overLimit
    }

    public var reason: String
    public var kind: Kind
    /// For `.overLimit` when the top object is a dictionary: the key whose
    /// value was being read when a limit was crossed, and what had been
    /// counted inside that value by then (a lower bound of its real cost).
    public var topLevelKey: String?
    public var topLevelCost: CanonicalCost?

    public init(reason: String, kind: Kind = .malformed) {
        self.reason = reason
        self.kind = kind
    }

    public var description: String { "invalid binary property list: \(reason)" }
}
