// SPDX-License-Identifier: MIT OR Apache-2.0
/// The six digits both devices show for the person to compare (not type):
/// 0...999 999, shown with leading zeros in two groups of three.
public struct ComparisonCode: Sendable, Equatable, CustomStringConvertible {
    public let value: UInt32

    public init?(value: UInt32) {
        guard value < 1_000_000 else { return nil }
        self.value = value
    }

    /// Six digits as a person might type them for a script
    /// (`--yes-if-code`): spaces ignored; nil unless exactly six digits.
    public init?(digits text: String) {
        let digits = text.filter { $0 != " " }
        guard digits.count == 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt32(digits) else { return nil }
        self.value = value
    }

    /// "042917".
    public var digits: String {
        let text = String(value)
        return String(repeating: "0", count: 6 - text.count) + text
    }

    /// "042 917", as people see it.
    public var description: String {
        let d = digits
        return "\(d.prefix(3)) \(d.suffix(3))"
    }
}
