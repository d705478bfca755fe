// SPDX-License-Identifier: MIT OR Apache-2.0
/// docs/PROTOCOL.md, read by the tests that recompute its test vectors, so
/// the specification and the code cannot drift apart.
public enum ProtocolDocument {
    /// The document's text; empty when it cannot be read.
    public static let text: String = {
        guard let bytes = try? RepositoryFiles.read("docs/PROTOCOL.md") else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }()

    /// The text of section `number` ("## 4. ...") up to the next section.
    /// It starts with the number ("4. Accounts ..."), without the "## ".
    public static func section(_ number: Int) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("## \(number). ") }) else { return nil }
        let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("## ") } ?? lines.endIndex
        return String(lines[start].dropFirst(3)) + lines[(start + 1)..<end].map { "\n" + $0 }.joined()
    }

    /// The bytes of the indented hex block that follows the line starting
    /// with `marker` in `text`; nil when there is none or it is not hex.
    public static func hexBlock(after marker: String, in text: String) -> [UInt8]? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(marker) }) else { return nil }
        var hex = ""
        for line in lines[(start + 1)...] {
            if line.isEmpty && hex.isEmpty { continue }
            guard line.hasPrefix("    ") else { break }
            hex += line.filter { $0 != " " }
        }
        return bytes(hex: hex)
    }

    /// Bytes from hex digits (either case); nil for an odd count or a non-digit.
    public static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }
}
