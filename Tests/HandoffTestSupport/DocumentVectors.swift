// SPDX-License-Identifier: MIT OR Apache-2.0
/// The test vectors of the normative documents (docs/PROTOCOL.md,
/// docs/agent.md), found by their markers, so that a test can check that
/// every one of them is recomputed (`DocumentVectorTests`).
///
/// The convention (PROTOCOL.md, "Test vectors"):
/// - a line starting with ``Vector `name` `` names the indented block that
///   follows its paragraph; its value is the block's
///   text with all spaces and line breaks removed;
/// - a table whose header's first cell is `vector` holds one vector a row:
///   the first cell is its name, the first backquoted text of the second
///   cell its value.
///
/// Anything that looks like a vector without a marker is reported as a
/// problem: an indented block of 16 or more hexadecimal digits and
/// nothing else, or a table cell whose backquoted text is 16 or more
/// hexadecimal digits, outside a vector table.
public struct DocumentVector: Sendable, Equatable {
    public let name: String
    public let value: String
    /// 1-based, for messages.
    public let line: Int

    public init(name: String, value: String, line: Int) {
        self.name = name
        self.value = value
        self.line = line
    }
}

public enum DocumentVectors {
    /// The documents whose vectors are checked, relative to the repository.
    public static let documents = ["docs/PROTOCOL.md", "docs/agent.md"]

    /// The text of `path` (relative to the repository); empty when unreadable.
    public static func text(of path: String) -> String {
        guard let bytes = try? RepositoryFiles.read(path) else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The vectors of `text`, and what breaks the convention (an unnamed
    /// vector, a marker without a block, a name used twice).
    public static func parse(_ text: String) -> (vectors: [DocumentVector], problems: [String]) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var vectors: [DocumentVector] = [], problems: [String] = []
        var claimed = Set<Int>()  // indented lines that belong to a named block
        var inFence = false, inVectorTable = false
        for (index, line) in lines.enumerated() {
            if line.drop(while: { $0 == " " }).hasPrefix("```") { inFence.toggle(); continue }
            if inFence { continue }
            if line.hasPrefix("Vector `"), let name = backquoted(line) {
                var i = index + 1
                // The rest of the marker's paragraph, then the blank lines before the block.
                while i < lines.count && !lines[i].isEmpty && !lines[i].hasPrefix("    ") { i += 1 }
                while i < lines.count && lines[i].isEmpty { i += 1 }
                var value = ""
                while i < lines.count && lines[i].hasPrefix("    ") {
                    value += lines[i].filter { $0 != " " }
                    claimed.insert(i)
                    i += 1
                }
                if value.isEmpty { problems.append("line \(index + 1): vector \(name) has no indented block") }
                vectors.append(DocumentVector(name: name, value: value, line: index + 1))
                continue
            }
            if line.hasPrefix("|") {
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().map {
                    $0.trimmingCharacters(in: " ")
                }
                if cells.first == "vector" { inVectorTable = true; continue }
                if cells.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }) { continue }  // the separator row
                if inVectorTable, cells.count >= 2, let value = backquoted(cells[1]) {
                    vectors.append(DocumentVector(name: cells[0], value: value, line: index + 1))
                } else if cells.contains(where: { looksLikeHexVector(backquoted($0) ?? "") }) {
                    problems.append("line \(index + 1): hex in a table that is not a vector table: \(line)")
                }
                continue
            }
            inVectorTable = false
            if line.hasPrefix("    "), !claimed.contains(index), index > 0, lines[index - 1].isEmpty {
                var block = ""
                var i = index
                while i < lines.count && lines[i].hasPrefix("    ") { block += lines[i].filter { $0 != " " }; i += 1 }
                if looksLikeHexVector(block) {
                    problems.append("line \(index + 1): an indented hex block without a \"Vector `name`\" line")
                }
            }
        }
        var seen = Set<String>()
        for v in vectors where !seen.insert(v.name).inserted {
            problems.append("line \(v.line): vector name \(v.name) is used twice")
        }
        return (vectors, problems)
    }

    /// The value of the vector `name` in the document at `path`.
    public static func value(_ name: String, in path: String = "docs/PROTOCOL.md") -> String? {
        parse(text(of: path)).vectors.first { $0.name == name }?.value
    }

    /// The bytes of the hex vector `name` in the document at `path`.
    public static func bytes(_ name: String, in path: String = "docs/PROTOCOL.md") -> [UInt8]? {
        value(name, in: path).flatMap { ProtocolDocument.bytes(hex: $0) }
    }

    /// Lowercase hex, as the documents write bytes.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out += [digits[Int(b >> 4)], digits[Int(b & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }

    static func backquoted(_ text: String) -> String? {
        let parts = text.split(separator: "`", omittingEmptySubsequences: false)
        return parts.count >= 3 ? String(parts[1]) : nil
    }

    static func looksLikeHexVector(_ text: String) -> Bool {
        text.count >= 16 && text.allSatisfy(\.isHexDigit)
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String { String(self).trimmingCharacters(in: set) }
}
