// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import Testing
@testable import HandoffModel

/// URLReference stands in for Foundation's URL in the library: the same
/// text accepted, the same text written back, the same scheme and host.
/// Compared here with Foundation itself, but for one difference: this test
/// process links FoundationInternationalization (swift-testing brings it),
/// which converts a host with characters RFC 3986 does not allow to IDNA,
/// where libhandoff.so, linking FoundationEssentials alone, percent-encoded
/// it. Those hosts are checked against the library's figures instead
/// (`hostsArePercentEncodedAsTheLibraryDid`).
@Suite struct URLReferenceTests {
    static func expectSame(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let ours = URLReference(string: text)
        if let ours, ours.encoded.contains(.host), !ours.parts.isIPLiteral {
            // Foundation here would have tried IDNA: ours must at least be
            // valid as it stands, so Foundation reads it unchanged.
            let again = URL(string: ours.absoluteString)
            #expect(again?.absoluteString == ours.absoluteString, "\(Array(text.utf8))", sourceLocation: sourceLocation)
            #expect(again?.scheme == ours.scheme, "\(Array(text.utf8))", sourceLocation: sourceLocation)
            return
        }
        let theirs = URL(string: text)
        #expect(ours?.absoluteString == theirs?.absoluteString, "\(Array(text.utf8))", sourceLocation: sourceLocation)
        #expect(ours?.scheme == theirs?.scheme, "\(Array(text.utf8))", sourceLocation: sourceLocation)
        #expect(ours?.host == theirs?.host, "\(Array(text.utf8))", sourceLocation: sourceLocation)
    }

    /// As libhandoff.so 0.1.0 (Foundation's URL without IDNA) wrote them.
    @Test func hostsArePercentEncodedAsTheLibraryDid() {
        for (text, written, host) in [
            ("https://bücher.de/x", "https://b%C3%BCcher.de/x", "bücher.de"), ("http://h i/", "http://h%20i/", "h i"),
            ("http://a]b/", "http://a%5Db/", "a]b"), ("http://[/", "http://%5B/", "["),
            ("http://hé/", "http://h%C3%A9/", "hé"), ("//%/p", "//%25/p", "%"),
        ] {
            let url = URLReference(string: text)
            #expect(url?.absoluteString == written)
            #expect(url?.host == host)
        }
    }

    static let odd: [String] = [
        "https://example.com/a?b=c", "https://a/b c", "https://a/" + String(repeating: " ", count: 20),
        "https://example.com/p?q=\u{e9}", "https://bücher.de/x", "https://a/%41 b", "https://a/%4", "https://a/%zz",
        "file:///tmp/x.txt", "just/a/path", "a:b", ":x", ":", "a:", "1a:b", "a b:c", "+a:b", "A+.-9:x",
        "http://h:80/p", "http://h:/p", "http://h:/p q", "http://h:080/p q", "http://h:8x/p", "addressbook://h:x/p",
        "ADDRESSBOOK://h:+5/p q", "http://h:99999999999999999999/ q", "http://u@h/", "http://u:p@h/", "http://a@b@h/ x",
        "http://u p:w d@h/", "http://[::1]/", "http://[::1]:8080/a b", "http://[::1]x/", "http://[::1%25eth0]/",
        "http://[::1%eth0]/", "http://[::1%eth0]/ ", "http://[v1.x y]/ ", "http://[fe80::1%25en 0]/", "http://[%25]/",
        "http://[::1%25\u{301}]:1/p", "http://[::1%25\u{301}x]/", "http://[]/", "http://[/", "http://a]b/", "http:///a", "https:///", "https://", "https:", "//h/p", "//", "/",
        "?q", "#f", "?", "#", "a?b#c#d", "a#b?c", "http://h/p?q r#f g", "http://h/p#f%", "http://%FF/", "http://%41/",
        "http://h%20i/", "http://h i/", "http://h\u{e9}/", "http://%EF%BB%BFh/", "mailto:a@b.c", "tel:+1 555",
        "urn:isbn:0451450523", "a:/b:c d", "b:c d/e", "x/y:z w", "http://h/a:b c", "http://h?x", "http://h#x",
        "ht\u{0}tp://h/", "http://h/\u{0}", "\u{7f}", "http://h/\u{7f}", "http://h/[] {}|\\^`\"<>",
        "HTTPS://EXAMPLE.COM/", "http://user@/", "http://:80/", "http://@/", "http://:@h/", "http://h:80:90/",
    ]

    @Test(arguments: odd)
    func oddTextIsReadAsFoundationReadsIt(_ text: String) {
        Self.expectSame(text)
    }

    /// Bounded: 5,000 texts mutated from valid ones with the delimiters
    /// and characters the reader treats specially.
    @Test func mutatedTextIsReadAsFoundationReadsIt() {
        var rng = SystemRandomNumberGenerator()
        let seeds = ["https://u:p@example.com:8080/a/b?c=d#e", "http://[::1%25x]:1/p", "a:b/c?d#e", "//h/p", "x"]
        let alphabet = Array(":/?#[]@%25AaZz09 +-.~!$&'()*,;=\"<>\\^`{|}".utf8) + [0xC3, 0xA9, 0x00, 0x7F]
        for _ in 0 ..< 5000 {
            var bytes = Array(seeds.randomElement(using: &rng)!.utf8)
            for _ in 0 ..< Int.random(in: 1 ... 5, using: &rng) {
                let i = Int.random(in: 0 ... bytes.count, using: &rng)
                let c = alphabet.randomElement(using: &rng)!
                if i < bytes.count && Bool.random(using: &rng) { bytes[i] = c } else { bytes.insert(c, at: i) }
            }
            Self.expectSame(String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func equalWhenTheTextIs() {
        #expect(URLReference(string: "https://a/b c") == URLReference(string: "https://a/b%20c"))
        #expect(URLReference(string: "https://a/b") != URLReference(string: "https://A/b"))
        #expect(Set([URLReference(string: "https://a/b c")!, URLReference(string: "https://a/b%20c")!]).count == 1)
        #expect(URLReference(string: "") == nil)
    }
}
