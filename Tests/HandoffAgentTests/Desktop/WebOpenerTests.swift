// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import Testing
@testable import HandoffAgent

@Suite struct WebOpenerTests {
    @Test(arguments: [
        "https://example.com", "http://example.com/a/b?c=d&e=f#g", "HTTPS://Example.COM:8443/x",
        "https://user@example.com/", "https://[::1]:8080/", "https://example.com/%E2%82%AC;a=$b,c'd(e)*+!~",
    ])
    func accepts(_ url: String) throws {
        try WebOpener.check(url)
    }

    @Test(arguments: [
        "file:///etc/passwd", "javascript:alert(1)", "ftp://example.com", "https:/example.com", "https://",
        "https:///path", "https://:80/", "https://example.com/a b", "https://example.com/\"x\"",
        "https://example.com/`id`", "https://example.com/\\x", "https://example.com/<x>", "https://example.com/%zz",
        "https://example.com/%4", "https://example.com/\u{7F}", "https://example.com/\n", "https://exämple.com/",
        "https://example.com/{a}", "https://example.com/a|b", "--help", "https://example.com/" + String(repeating: "a", count: 8200),
    ])
    func refuses(_ url: String) {
        #expect(failure { try WebOpener.check(url) }?.code == .invalidValue, "\(url)")
    }

    @Test func opensWithXdgOpen() throws {
        let t = TemporaryTree("handoff-web")
        t.write("bin/xdg-open", "#!/bin/sh\nprintf '%s\\n' \"$#\" \"$@\" > \"\(t.path("opened")).tmp\" && mv \"\(t.path("opened")).tmp\" \"\(t.path("opened"))\"\n", mode: 0o755)
        let url = "https://example.com/a?b=$(id)&c='d'"
        let pid = try WebOpener(searchPath: [t.path("bin")]).open(url)
        #expect(pid > 0)
        #expect(eventually { t.exists("opened") })
        #expect(t.read("opened") == "1\n\(url)\n")
        #expect(noZombieChildrenLeft())

        let missing = failure { try WebOpener(searchPath: [t.path("nothing")]).open("https://example.com") }
        #expect(missing?.code == .handoffFailed)
        #expect(failure { try WebOpener(searchPath: [t.path("bin")]).open("file:///etc/passwd") }?.code == .invalidValue)
    }
}
