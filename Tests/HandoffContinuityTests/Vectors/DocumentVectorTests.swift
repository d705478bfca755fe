// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffTestSupport
import Testing

/// Every test vector of docs/PROTOCOL.md and docs/agent.md is recomputed by
/// the code: the documents' vectors are found by their markers
/// (`DocumentVectors`), each must have an entry in `DocumentVectorRegistry`
/// that computes its value with the library, and each entry must name a
/// vector the document still has. A vector added to a document without a
/// recomputation, one whose bytes the code no longer produces, or hex left
/// without a marker fails here.
@Suite struct DocumentVectorTests {
    static let registry: [String: DocumentVectorRegistry.Entries] = [
        "docs/PROTOCOL.md": DocumentVectorRegistry.protocolDocument,
        "docs/agent.md": DocumentVectorRegistry.agentDocument,
    ]

    @Test(arguments: DocumentVectors.documents)
    func everyVectorIsRecomputed(document: String) throws {
        let text = DocumentVectors.text(of: document)
        try #require(!text.isEmpty, "\(document) cannot be read")
        let (vectors, problems) = DocumentVectors.parse(text)
        #expect(problems.isEmpty, "\(document): \(problems.joined(separator: "\n"))")
        let recompute = try #require(Self.registry[document])
        for vector in vectors {
            guard let compute = recompute[vector.name] else {
                Issue.record("\(document) line \(vector.line): vector \"\(vector.name)\" is recomputed by no test (add it to DocumentVectorRegistry)")
                continue
            }
            let computed = try compute()
            #expect(computed == vector.value,
                    "\(document) line \(vector.line): vector \"\(vector.name)\" should be\n\(Self.wrapped(computed))")
        }
        let documented = Set(vectors.map(\.name))
        for name in recompute.keys.sorted() where !documented.contains(name) {
            Issue.record("\(document) has no vector \"\(name)\" any more (remove it from DocumentVectorRegistry)")
        }
    }

    @Test func bothDocumentsHaveVectors() {
        // A parser that found nothing would let every document pass.
        #expect(DocumentVectors.parse(DocumentVectors.text(of: "docs/PROTOCOL.md")).vectors.count >= 40)
        #expect(DocumentVectors.parse(DocumentVectors.text(of: "docs/agent.md")).vectors.count >= 2)
    }

    @Test func theConventionCatchesUnmarkedAndMisnamedVectors() {
        let unmarked = "Some bytes:\n\n    00010203 04050607 08090a0b\n"
        #expect(DocumentVectors.parse(unmarked).problems.count == 1)
        let marked = "Vector `x` (12 bytes):\n\n    00010203 04050607 08090a0b\n"
        #expect(DocumentVectors.parse(marked).problems.isEmpty)
        #expect(DocumentVectors.parse(marked).vectors == [DocumentVector(name: "x", value: "000102030405060708090a0b", line: 1)])
        let table = "| vector | hex |\n| --- | --- |\n| a | `0001020304050607` |\n\n| name | hex |\n| --- | --- |\n| b | `0001020304050607` |\n"
        let parsed = DocumentVectors.parse(table)
        #expect(parsed.vectors.map(\.name) == ["a"])
        #expect(parsed.problems.count == 1)
        #expect(DocumentVectors.parse(marked + marked).problems.count == 1)  // a name used twice
    }

    /// Hex in lines of 64 digits, to paste into a document.
    static func wrapped(_ value: String) -> String {
        guard value.allSatisfy(\.isHexDigit), value.count > 64 else { return value }
        var lines: [String] = [], rest = Substring(value)
        while !rest.isEmpty { lines.append("    " + rest.prefix(64)); rest = rest.dropFirst(64) }
        return lines.joined(separator: "\n")
    }
}
