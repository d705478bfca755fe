// SPDX-License-Identifier: MIT OR Apache-2.0

/// Which installed app a bookmark's application is, and which process
/// runs it (docs/documents.md §7 "Which app").
///
/// A bookmark names its app by `name` and `exec`. GLib stores `exec`
/// shell-quoted whole (`'mousepad %u'`); KDE's KIO writes the entry's
/// Exec plus ` %u` and the desktop entry's name as `name`
/// (`org.kde.okular`). So: an installed entry whose id is `name` (KDE)
/// wins; else the entries whose program is the bookmark's, preferring one
/// that takes files (`%f %F %u %U`) and is shown in menus.
public enum DocumentAppMatch {
    /// An installed desktop entry, as the bridge sees it.
    public struct Entry: Sendable, Equatable {
        /// The desktop-file id, `org.xfce.mousepad.desktop`.
        public var id: String
        /// Names its Exec program goes by: the basename as written and that
        /// of the file it resolves to (`libreoffice` → `soffice`).
        public var programs: Set<String>
        public var takesFiles: Bool
        public var noDisplay: Bool
        public var mimeTypes: [String]

        public init(id: String, programs: Set<String>, takesFiles: Bool, noDisplay: Bool = false, mimeTypes: [String] = []) {
            self.id = id
            self.programs = programs
            self.takesFiles = takesFiles
            self.noDisplay = noDisplay
            self.mimeTypes = mimeTypes
        }

        /// The bundle id the bridge offers under: the id without `.desktop`.
        public var bundleIdentifier: String { DocumentAppMatch.bundleIdentifier(id) }
    }

    public static func bundleIdentifier(_ desktopID: String) -> String {
        desktopID.hasSuffix(".desktop") ? String(desktopID.dropLast(8)) : desktopID
    }

    /// The program a bookmark's `exec` runs (its basename): the value
    /// shell-unquoted (GLib quotes it whole), split at blanks, `env` and its
    /// `NAME=value` words skipped. Nil when there is none.
    public static func program(ofExec exec: String) -> String? {
        let words = shellWords(exec.count > 4096 ? String(exec.prefix(4096)) : exec)
        let unquoted = words.count == 1 ? shellWords(words[0]) : words
        var index = 0
        if index < unquoted.count, basename(unquoted[index]) == "env" {
            index += 1
            while index < unquoted.count, unquoted[index].contains("=") || unquoted[index].hasPrefix("-") { index += 1 }
        }
        guard index < unquoted.count else { return nil }
        let name = basename(unquoted[index])
        return name.isEmpty || name.hasPrefix("%") ? nil : name
    }

    /// The entry for `application` among `entries` (in precedence order).
    public static func entry(for application: RecentBookmark.Application, among entries: [Entry]) -> Entry? {
        let byName = application.name.hasSuffix(".desktop") ? application.name : application.name + ".desktop"
        if let exact = entries.first(where: { $0.id == byName }) { return exact }
        guard let program = program(ofExec: application.exec) else { return nil }
        let matching = entries.filter { $0.programs.contains(program) }
        return matching.first { $0.takesFiles && !$0.noDisplay } ?? matching.first { $0.takesFiles } ?? matching.first
    }

    /// True when a process whose executable is `exe` (`/proc/PID/exe`) and
    /// whose `argv[0]` is `argv0` runs one of `programs`. LibreOffice's
    /// process is `soffice.bin`, started by the `soffice` script.
    public static func runs(_ programs: Set<String>, exe: String?, argv0: String?) -> Bool {
        for path in [exe, argv0].compactMap({ $0 }) {
            var name = basename(path)
            // exe of a replaced binary reads "/usr/bin/x (deleted)".
            if name.hasSuffix(" (deleted)") { name = String(name.dropLast(10)) }
            if programs.contains(name) { return true }
            if name.hasSuffix(".bin"), programs.contains(String(name.dropLast(4))) { return true }
        }
        return false
    }

    public static func basename(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? ""
    }

    /// POSIX shell words: blanks separate, `'…'` literal, `"…"` with `\`
    /// escaping `"`, `\`, `$`, `` ` ``; `\` outside quotes escapes the next.
    static func shellWords(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var iterator = Array(text)[...]
        while let c = iterator.popFirst() {
            switch c {
            case " ", "\t", "\n":
                if inWord { words.append(current); current = ""; inWord = false }
            case "'":
                inWord = true
                while let d = iterator.popFirst(), d != "'" { current.append(d) }
            case "\"":
                inWord = true
                while let d = iterator.popFirst(), d != "\"" {
                    if d == "\\", let next = iterator.first, "\"\\$`".contains(next) {
                        current.append(iterator.removeFirst())
                    } else {
                        current.append(d)
                    }
                }
            case "\\":
                inWord = true
                if let next = iterator.popFirst() { current.append(next) }
            default:
                inWord = true
                current.append(c)
            }
        }
        if inWord { words.append(current) }
        return words
    }
}
