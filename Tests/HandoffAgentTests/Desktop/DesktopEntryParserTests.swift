// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import Testing
@testable import HandoffAgent

// The Desktop Entry Specification's basic format, value types and locale
// matching, and every way a file can be malformed: each refusal names the
// file and the line.

private func parse(_ text: String, limits: DesktopEntryParser.Limits = .default) throws(HandoffError) -> DesktopEntry {
    try DesktopEntry(bytes: Array(text.utf8), source: "t.desktop", limits: limits)
}

/// The error a parse (or a read) throws, for assertions on its message.
func failure(_ body: () throws -> Void) -> HandoffError? {
    do { try body() } catch let error as HandoffError { return error } catch { Issue.record("\(error)") }
    return nil
}

@Suite struct DesktopEntryParserTests {
    @Test func groupsKeysCommentsAndSpaces() throws {
        let entry = try parse("""
        # A comment before the first group
        
        [Desktop Entry]
        Type=Application
        Name = Notes  
          Exec=notes %U
        Comment=a # is not a comment inside a value
        X-Handoff-ActivityTypes=com.example.notes.edit;
        # comment between keys
        [Desktop Action new-window]
        Name=New Window
        Exec=notes --new
        """)
        #expect(entry.groupNames == ["Desktop Entry", "Desktop Action new-window"])
        #expect(try entry.string("Type") == "Application")
        #expect(try entry.string("Name") == "Notes")
        #expect(try entry.string("Exec") == "notes %U")
        #expect(try entry.string("Comment") == "a # is not a comment inside a value")
        #expect(try entry.string("Exec", in: "Desktop Action new-window") == "notes --new")
        #expect(try entry.string("Missing") == nil)
        #expect(entry.line(of: "Exec") == 6)
        #expect(entry.keys() == ["Comment", "Exec", "Name", "Type", "X-Handoff-ActivityTypes"])
    }

    @Test func stringEscapes() throws {
        let entry = try parse("[Desktop Entry]\nA=\\sx\\ty\\nz\\r\\\\\\s\nB=\\\\\\\\\n")
        #expect(try entry.string("A") == " x\ty\nz\r\\ ")
        #expect(try entry.string("B") == "\\\\")
    }

    @Test func badEscapeFailsOnlyWhenRead() throws {
        let entry = try parse("[Desktop Entry]\nGood=yes\nBad=a\\qb\nLone=end\\\n")
        #expect(try entry.string("Good") == "yes")
        let bad = failure { _ = try entry.string("Bad") }
        #expect(bad?.code == .malformedData)
        #expect(bad?.message.hasPrefix("t.desktop:3: Bad: invalid escape \\q") == true)
        #expect(failure { _ = try entry.string("Lone") }?.message.hasPrefix("t.desktop:4: Lone: a lone backslash") == true)
        // \; is for lists only.
        let semicolon = try parse("[Desktop Entry]\nS=a\\;b\n")
        #expect(failure { _ = try semicolon.string("S") } != nil)
        #expect(try semicolon.strings("S") == ["a;b"])
    }

    @Test func lists() throws {
        let entry = try parse("""
        [Desktop Entry]
        A=one;two;three;
        B=one;two
        C=a\\;b;c\\sd;;e;
        D=
        E=;
        F=single
        """)
        #expect(try entry.strings("A") == ["one", "two", "three"])
        #expect(try entry.strings("B") == ["one", "two"])
        #expect(try entry.strings("C") == ["a;b", "c d", "", "e"])
        #expect(try entry.strings("D") == [])
        #expect(try entry.strings("E") == [""])
        #expect(try entry.strings("F") == ["single"])
        #expect(try entry.strings("Missing") == nil)
    }

    @Test func booleans() throws {
        let entry = try parse("[Desktop Entry]\nYes=true\nNo=false\nOne=1\nTitle=True\n")
        #expect(try entry.boolean("Yes") == true)
        #expect(try entry.boolean("No") == false)
        #expect(try entry.boolean("Missing") == nil)
        #expect(failure { _ = try entry.boolean("One") }?.message.hasPrefix("t.desktop:4: One: \"1\" is not a boolean") == true)
        #expect(failure { _ = try entry.boolean("Title") }?.message.hasPrefix("t.desktop:5: Title:") == true)
    }

    @Test func localeMatching() throws {
        let entry = try parse("""
        [Desktop Entry]
        Name=Notes
        Name[de]=Notizen
        Name[de_CH]=Notize
        Name[sr@latin]=Beleske
        Name[sr_RS@latin]=Beleške
        """)
        #expect(try entry.localizedString("Name", locale: "de_DE.UTF-8") == "Notizen")
        #expect(try entry.localizedString("Name", locale: "de_CH.UTF-8") == "Notize")
        #expect(try entry.localizedString("Name", locale: "de") == "Notizen")
        #expect(try entry.localizedString("Name", locale: "sr_RS.UTF-8@latin") == "Beleške")
        #expect(try entry.localizedString("Name", locale: "sr_ME@latin") == "Beleske")
        #expect(try entry.localizedString("Name", locale: "sr_RS") == "Notes")
        #expect(try entry.localizedString("Name", locale: "fr_FR.UTF-8") == "Notes")
        #expect(try entry.localizedString("Name", locale: "C") == "Notes")
        #expect(try entry.localizedString("Name", locale: nil) == "Notes")
        #expect(try entry.string("Name[de]") == "Notizen")
        #expect(DesktopEntryValues.localeCandidates("sr_RS.UTF-8@latin") == ["sr_RS@latin", "sr_RS", "sr@latin", "sr"])
    }

    @Test(arguments: [
        ("Name=x\n[Desktop Entry]\n", 1, "a key before the [Desktop Entry] group"),
        ("# c\n[Other]\nA=b\n[Desktop Entry]\n", 2, "the first group is [Other]"),
        ("[Desktop Entry]\n[Desktop Entry]\n", 2, "group [Desktop Entry] appears twice"),
        ("[Desktop Entry]\nA=1\nB=2\nA=3\n", 4, "A appears twice in [Desktop Entry] (first on line 2)"),
        ("[Desktop Entry]\nNa me=x\n", 2, "key \"Na me\" is not"),
        ("[Desktop Entry]\nName_x=x\n", 2, "key \"Name_x\" is not"),
        ("[Desktop Entry]\nName[]=x\n", 2, "key \"Name[]\" is not"),
        ("[Desktop Entry]\nName[de=x\n", 2, "key \"Name[de\" is not"),
        ("[Desktop Entry]\nName[de]x=x\n", 2, "key \"Name[de]x\" is not"),
        ("[Desktop Entry]\n=value\n", 2, "key \"\" is not"),
        ("[Desktop Entry\nA=b\n", 1, "does not end with ]"),
        ("[Desktop Entry]\n[a[b]\n", 2, "may hold only printable ASCII"),
        ("[Desktop Entry]\n[]\n", 2, "an empty group name"),
        ("[Desktop Entry]\njust words\n", 2, "is neither a [group] header"),
        ("[Desktop Entry]\r\nA=b\r\n", 1, "a carriage return (CRLF line ends?)"),
        ("[Desktop Entry]\nA=b\u{01}c\n", 2, "control character 0x1"),
        ("[Desktop Entry]\nA=b\u{7F}\n", 2, "control character 0x7f"),
    ] as [(String, Int, String)])
    func malformed(_ text: String, _ line: Int, _ message: String) {
        let error = failure { _ = try parse(text) }
        #expect(error?.code == .malformedData)
        #expect(error?.message.hasPrefix("t.desktop:\(line): ") == true, "\(String(describing: error))")
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }

    @Test func invalidUTF8NamesItsLine() {
        var bytes = Array("[Desktop Entry]\nA=ok\nB=".utf8)
        bytes += [0xC3, 0x28, 0x0A]
        let error = failure { _ = try DesktopEntry(bytes: bytes, source: "u.desktop") }
        #expect(error?.message.hasPrefix("u.desktop:3: not valid UTF-8") == true)
        let nul = failure { _ = try DesktopEntry(bytes: Array("[Desktop Entry]\nA=b".utf8) + [0, 0x0A], source: "n.desktop") }
        #expect(nul?.message.hasPrefix("n.desktop:2: control character 0x0") == true)
    }

    @Test func commentsMayHoldAnything() throws {
        let entry = try DesktopEntry(bytes: Array("# \u{01}\r\t ok\n[Desktop Entry]\nA=b\n".utf8), source: "c.desktop")
        #expect(try entry.string("A") == "b")
    }

    @Test func notADesktopEntry() {
        #expect(failure { _ = try parse("") }?.message == "t.desktop: no [Desktop Entry] group; this is not a desktop entry")
        #expect(failure { _ = try parse("# only comments\n\n") }?.message.contains("no [Desktop Entry] group") == true)
    }

    @Test func bounds() throws {
        let big = "[Desktop Entry]\nComment=" + String(repeating: "x", count: 64 << 10) + "\n"
        #expect(failure { _ = try parse(big) }?.message.contains("over the 65536-byte limit") == true)
        // Exactly at the limit is fine.
        let header = "[Desktop Entry]\nComment="
        let exact = header + String(repeating: "x", count: (64 << 10) - header.utf8.count - 1) + "\n"
        #expect(exact.utf8.count == 64 << 10)
        #expect(try parse(exact).string("Comment")?.count == (64 << 10) - header.utf8.count - 1)

        let small = DesktopEntryParser.Limits(maxBytes: 4096, maxLines: 5, maxKeys: 3, maxGroups: 2)
        #expect(failure { _ = try parse("[Desktop Entry]\n\n\n\n\n#\n", limits: small) }?.message == "t.desktop:6: more than 5 lines")
        #expect(failure { _ = try parse("[Desktop Entry]\nA=1\nB=2\nC=3\nD=4\n", limits: small) }?.message == "t.desktop:5: more than 3 keys")
        #expect(failure { _ = try parse("[Desktop Entry]\n[B]\n[C]\n", limits: small) }?.message == "t.desktop:3: more than 2 groups")
        #expect(try parse("[Desktop Entry]\nA=1\n[B]\nB=2\nC=3", limits: small).keys(in: "B") == ["B", "C"])
    }

    @Test func fileOverTheLimitIsRefusedBeforeReading() throws {
        let tree = TemporaryTree()
        let path = tree.write("big.desktop", "[Desktop Entry]\n" + String(repeating: "#\n", count: 40_000))
        let error = failure { _ = try DesktopEntry(path: path) }
        #expect(error?.code == .malformedData)
        #expect(error?.message == "\(path): 80016 bytes, over the 65536-byte limit")
        let missing = failure { _ = try DesktopEntry(path: tree.path("absent.desktop")) }
        #expect(missing?.code == .io)
        let folder = failure { _ = try DesktopEntry(path: tree.root) }
        #expect(folder?.message == "\(tree.root): not a regular file")
        let good = tree.write("good.desktop", "[Desktop Entry]\nType=Application\n")
        #expect(try DesktopEntry(path: good).string("Type") == "Application")
        #expect(try DesktopEntry(path: good).source == good)
    }
}
