// SPDX-License-Identifier: MIT OR Apache-2.0

/// Where the cursor was in a document: `line` counted from 1, `column`
/// from 0 (characters), as Mousepad's `--line`/`--column` and Neovim's
/// cursor count them.
public struct DocumentCursor: Sendable, Equatable {
    public static let maxLine = 1 << 30
    public var line: Int
    public var column: Int

    public init?(line: Int, column: Int) {
        guard (1...Self.maxLine).contains(line), (0...Self.maxLine).contains(column) else { return nil }
        self.line = line
        self.column = column
    }

    /// The cursor a bookmark's description carries. Mousepad writes
    /// `Language: ; Encoding: UTF-8; Cursor: 2:10;` (line from 0, column
    /// from 0: that is line 3 here). Nil when there is none.
    public static func fromDescription(_ text: String) -> DocumentCursor? {
        for field in text.split(separator: ";") {
            let trimmed = field.drop { $0 == " " }
            guard trimmed.hasPrefix("Cursor:") else { continue }
            let value = trimmed.dropFirst("Cursor:".count).filter { $0 != " " }
            let parts = value.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 10 && $0.allSatisfy(\.isASCIIDigitCharacter) }),
                  let line = Int(parts[0]), let column = Int(parts[1]) else { return nil }
            return DocumentCursor(line: line + 1, column: column)
        }
        return nil
    }
}

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { ("0"..."9").contains(self) }
}
