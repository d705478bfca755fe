// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import Testing

/// Web domains (Apple's associated domains, docs/agent.md §13).
struct WebDomainTests {
    @Test(arguments: [
        ("example.com", "example.com", true), ("example.com", "EXAMPLE.com", true), ("example.com", "example.com.", true),
        ("example.com", "www.example.com", false), ("*.example.com", "www.example.com", true),
        ("*.example.com", "a.b.example.com", true), ("*.example.com", "example.com", false),
        ("*.example.com", "wwwexample.com", false), ("*.example.com", "example.com.evil.net", false),
        ("*.example.com", ".example.com", false), ("Example.COM", "example.com", true),
        ("*.example.com", "a b.example.com", false), ("*.example.com", "a\u{0}.example.com", false),
        ("1.2.3.4", "1.2.3.4", true), ("*.example.com", "[::1]", false),
    ])
    func matching(domain: String, host: String, expected: Bool) throws {
        #expect(try WebDomain(domain).matches(host: host) == expected)
    }

    @Test(arguments: ["", "*.", "*", "**.example.com", "*example.com", "a.*.example.com", "https://example.com",
                      "example.com/", "example.com:443", "exa mple.com", "a..b", ".example.com", "example.com..",
                      "-a.example.com", "a-.example.com", "é.example.com", "a_b.example.com",
                      String(repeating: "a", count: 64) + ".com", String(repeating: "a.", count: 127) + "bc"])
    func refused(_ text: String) {
        #expect(throws: HandoffError.self) { try WebDomain(text) }
    }

    @Test func aManifestClaimsAtMost64AndKeepsTheirOrder() throws {
        var m = try Manifest(bundleIdentifier: "com.example.app", teamIdentifier: "TEAM1")
        try m.declare(webDomain: "B.example.com")
        try m.declare(webDomain: "*.a.example.com")
        try m.declare(webDomain: "b.example.com")
        #expect(m.webDomains.map(\.description) == ["b.example.com", "*.a.example.com"])
        #expect(m.claims(host: "x.a.example.com") && m.claims(host: "b.example.com") && !m.claims(host: "a.example.com"))
        for i in 2..<Manifest.maxWebDomains { try m.declare(webDomain: "d\(i).example.net") }
        #expect(throws: HandoffError.self) { try m.declare(webDomain: "more.example.net") }
        #expect(m.webDomains.count == Manifest.maxWebDomains)
        // The longest host name is 253 bytes.
        let longest = String(repeating: String(repeating: "a", count: 62) + ".", count: 4) + "b"
        #expect(longest.utf8.count == 253)
        var other = try Manifest(bundleIdentifier: "com.example.app", teamIdentifier: "TEAM1")
        try other.declare(webDomain: longest)
        #expect(throws: HandoffError.self) { try other.declare(webDomain: "a" + longest) }
    }
}
