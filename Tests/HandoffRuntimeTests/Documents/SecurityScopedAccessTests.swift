// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffRuntime
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct SecurityScopedAccessTests {
    @Test("outside a sandbox: the URL's own path, and stopping is nothing")
    func outside() throws {
        let folder = try Folder()
        #expect(try SecurityScopedAccess.start("file:///home/ada/My%20plan.odt", root: folder.root) == Array("/home/ada/My plan.odt".utf8))
        try SecurityScopedAccess.stop("file:///home/ada/My%20plan.odt")
    }

    @Test("anything but a file: URL is an invalid argument", arguments: ["https://example.com/a", "file://host/a", "plan.odt", "", "file:///a?x"])
    func notAFileURL(_ text: String) throws {
        do {
            _ = try SecurityScopedAccess.start(text)
            Issue.record("\(text) gave a path")
        } catch {
            #expect(error.code == .invalidArgument)
        }
        #expect(throws: HandoffError.self) { try SecurityScopedAccess.stop(text) }
    }

    @Test("inside a Flatpak sandbox without an agent: a clear error, never a path the app cannot open")
    func insideFlatpakWithoutAgent() throws {
        let folder = try Folder()
        try folder.write(".flatpak-info", "[Application]\nname=org.example.App\n")
        do {
            _ = try SecurityScopedAccess.start("file:///home/ada/plan.odt", root: folder.root)
            Issue.record("inside the sandbox without an agent, start gave a path")
        } catch {
            #expect(error.code == .invalidState)
            #expect(error.message.contains("handoff agent"))
        }
        do {
            try SecurityScopedAccess.stop("file:///home/ada/plan.odt", root: folder.root)
            Issue.record("inside the sandbox without an agent, stop succeeded")
        } catch {
            #expect(error.code == .invalidState)
            #expect(error.message.contains("handoff agent"))
        }
    }
}
