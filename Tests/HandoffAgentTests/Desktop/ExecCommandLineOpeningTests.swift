// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffAgent
import Testing

/// `ExecCommandLine.opening`: the documents bridge's launch of an app with
/// a local file, where the line's `%f`/`%u` stood, as one argument.
struct ExecCommandLineOpeningTests {
    func opened(_ line: String) throws -> [String] {
        try ExecCommandLine(line).opening(path: "/home/a/b c.txt", fileURL: "file:///home/a/b%20c.txt").arguments
    }

    @Test func theFileGoesWhereItsFieldCodeStood() throws {
        #expect(try opened("mousepad %U") == ["mousepad", "file:///home/a/b%20c.txt"])
        #expect(try opened("gedit %F --new-window") == ["gedit", "/home/a/b c.txt", "--new-window"])
        #expect(try opened("libreoffice --writer %u") == ["libreoffice", "--writer", "file:///home/a/b%20c.txt"])
        // No field code: last, as GLib appends it.
        #expect(try opened("kwrite") == ["kwrite", "/home/a/b c.txt"])
        // A value with spaces or quotes stays one argument, never parsed again.
        let hostile = try ExecCommandLine("app %f").opening(path: "/h/x\"; rm -rf ~ #", fileURL: "file:///x").arguments
        #expect(hostile == ["app", "/h/x\"; rm -rf ~ #"])
        // The line without a file is as before.
        #expect(try ExecCommandLine("mousepad %U").arguments == ["mousepad"])
    }
}
