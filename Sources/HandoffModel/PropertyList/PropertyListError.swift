/// Why bytes are not a binary property list the decoder accepts.
///
/// `reason` names the rule that was broken and the numbers involved, e.g.
/// "object reference 9 is out of range (7 objects)". It is meant for logs
/// and error messages, not for matching in code.
public struct PropertyListError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String

    public init(reason: String) {
        self.reason = reason
    }

    public var description: String { "invalid binary property list: \(reason)" }
}
