// SPDX-License-Identifier: MIT OR Apache-2.0
import Testing
@testable import HandoffModel

@Suite struct FileURLTests {
    @Test("a path's URL escapes what GLib's g_filename_to_uri escapes, and reads back")
    func roundTrip() throws {
        let cases: [(String, String)] = [
            ("/home/ada/plan.odt", "file:///home/ada/plan.odt"),
            ("/home/ada/My Notes/a#b?c%d.txt", "file:///home/ada/My%20Notes/a%23b%3Fc%25d.txt"),
            ("/home/ada/été/naïve+(1)&x=y;z@h:m~.txt", "file:///home/ada/%C3%A9t%C3%A9/na%C3%AFve+(1)&x=y;z@h:m~.txt"),
        ]
        for (path, text) in cases {
            let url = FileURL.url(forPath: Array(path.utf8))
            #expect(url.absoluteString == text)
            #expect(FileURL.path(of: url) == Array(path.utf8))
        }
        // Bytes that are not UTF-8 survive both ways.
        let raw: [UInt8] = Array("/tmp/".utf8) + [0xFF, 0x41]
        #expect(FileURL.path(of: FileURL.url(forPath: raw)) == raw)
    }

    @Test("only a file: URL of an absolute local path has a path")
    func refusals() throws {
        for text in ["https://example.com/a", "file://otherhost/a", "file:///a?q=1", "file:///a#frag",
                     "file:relative", "file:///a%00b", "mailto:a@b"] {
            #expect(FileURL.path(of: try #require(URLReference(string: text))) == nil, "\(text)")
        }
        #expect(FileURL.path(of: try #require(URLReference(string: "file://localhost/a%20b"))) == Array("/a b".utf8))
        #expect(FileURL.path(of: try #require(URLReference(string: "FILE:///x"))) == Array("/x".utf8))
    }
}
