// SPDX-License-Identifier: MIT OR Apache-2.0
/// How a property list reader treats a key that appears twice in one
/// dictionary.
public enum RepeatedKeyRule: Sendable, Equatable {
    /// Refused: the rule for everything that crosses the wire or the agent's
    /// socket (docs/PROTOCOL.md §1).
    case refuse
    /// The last value is kept and each repeat is reported, as Apple's tools
    /// and CPython's plistlib read files written by people and their
    /// build tools, such as Info.plists.
    case lastWins
}

/// The repeats a `.lastWins` reader met, in the order met: the first
/// `maxListed` described, the rest counted, so a hostile file of repeats
/// gives a short list.
struct RepeatedKeyReport {
    static let maxListed = 16
    private var listed: [String] = []
    private var unlisted = 0

    mutating func add(_ description: @autoclosure () -> String) {
        if listed.count < Self.maxListed {
            listed.append(description())
        } else {
            unlisted += 1
        }
    }

    var messages: [String] {
        unlisted == 0 ? listed : listed + ["\(unlisted) more keys appear twice in one dictionary: the last value of each is used"]
    }
}
