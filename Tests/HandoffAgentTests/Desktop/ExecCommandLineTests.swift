// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import Testing
@testable import HandoffAgent

// The Exec key: quoting, reserved characters, field codes. Values are
// written as they stand in a file, so the string escapes (\\ for one
// backslash) are undone first, as the agent does.

private func exec(_ fileValue: String) throws(HandoffError) -> [String] {
    let entry = try DesktopEntry(bytes: Array("[Desktop Entry]\nExec=\(fileValue)\n".utf8), source: "e.desktop")
    return try ExecCommandLine(entry.string("Exec")!).arguments
}

@Suite struct ExecCommandLineTests {
    @Test(arguments: [
        ("notes", ["notes"]),
        ("notes --new-window %U", ["notes", "--new-window"]),
        ("  notes   -a    -b  ", ["notes", "-a", "-b"]),
        ("/usr/bin/notes %f", ["/usr/bin/notes"]),
        ("\"/opt/My Notes/bin/notes\" --title \"two words\"", ["/opt/My Notes/bin/notes", "--title", "two words"]),
        // In the file: \\\\ is one backslash in quotes, \\$ a dollar, \\" a quote, \\` a backtick.
        ("app \"a\\\\\\\\b\" \"c\\\\$d\" \"e\\\\\"f\" \"g\\\\`h\"", ["app", "a\\b", "c$d", "e\"f", "g`h"]),
        ("app \"$HOME; rm -rf ~ | cat > x\"", ["app", "$HOME; rm -rf ~ | cat > x"]),
        ("app \"\"", ["app", ""]),
        ("app 100%%", ["app", "100%"]),
        ("app --file=%f", ["app", "--file="]),
        ("app %i %c %k %u", ["app"]),
        ("app %d %D %n %N %v %m -x", ["app", "-x"]),
        ("app %%f", ["app", "%f"]),
        ("app \"%U\"", ["app"]),
        ("app a=b", ["app", "a=b"]),
        ("app \\s-x", ["app", "-x"]),
        // What `flatpak` writes into the desktop entries it exports: the
        // file code between its @@u ... @@ markers is dropped, the markers
        // stay (flatpak run forwards the files between them, none here).
        ("/usr/bin/flatpak run --branch=stable --arch=x86_64 --command=notes --file-forwarding org.example.Notes @@u %U @@",
         ["/usr/bin/flatpak", "run", "--branch=stable", "--arch=x86_64", "--command=notes", "--file-forwarding",
          "org.example.Notes", "@@u", "@@"]),
        ("/usr/bin/flatpak run --branch=stable --arch=aarch64 --command=calc org.example.Calc",
         ["/usr/bin/flatpak", "run", "--branch=stable", "--arch=aarch64", "--command=calc", "org.example.Calc"]),
        ("/usr/bin/flatpak run --branch=master --arch=x86_64 --command=viewer --file-forwarding org.example.Viewer --new-window @@ %F @@",
         ["/usr/bin/flatpak", "run", "--branch=master", "--arch=x86_64", "--command=viewer", "--file-forwarding",
          "org.example.Viewer", "--new-window", "@@", "@@"]),
    ] as [(String, [String])])
    func parses(_ value: String, _ expected: [String]) throws {
        #expect(try exec(value) == expected)
    }

    @Test(arguments: [
        ("sh -c $HOME", "\"$\" outside quotes"),
        ("app > out", "\">\" outside quotes"),
        ("app;reboot", "\";\" outside quotes"),
        ("app | tee", "\"|\" outside quotes"),
        ("app 'quoted'", "\"'\" outside quotes"),
        ("app `id`", "\"`\" outside quotes"),
        ("app ~/x", "\"~\" outside quotes"),
        ("app *.txt", "\"*\" outside quotes"),
        ("app #x", "\"#\" outside quotes"),
        ("app (x)", "\"(\" outside quotes"),
        ("app a&", "\"&\" outside quotes"),
        ("app x?", "\"?\" outside quotes"),
        ("app a\\tb", "a tab outside quotes"),
        ("app a\\\\b", "\"\\\" outside quotes"),
        ("app foo\"bar\"", "\"\"\" outside quotes"),
        ("app \"bar\"foo", "must be quoted in whole"),
        ("app \"open", "a double quote is not closed"),
        ("app \"a\\\\qb\"", "\\q inside quotes"),
        ("app %x", "unknown field code %x"),
        ("app 5%", "a lone % at the end"),
        ("app %f %U", "2 of the field codes"),
        ("VAR=1 app", "contains \"=\""),
        ("%U", "names no program"),
        ("", "names no program"),
        ("\"\" -x", "names no program"),
    ] as [(String, String)])
    func refuses(_ value: String, _ message: String) {
        do {
            let arguments = try exec(value)
            Issue.record("\(value) gave \(arguments)")
        } catch {
            #expect(error.code == .malformedData)
            #expect(error.message.hasPrefix("Exec: "))
            #expect(error.message.contains(message), "\(error.message)")
        }
    }
}
