// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// gettext for the words a person reads in the agent and the `handoff`
/// tool (docs/TRANSLATING.md): the catalogue "handoff", found beside the
/// installed executable (`<prefix>/bin/handoff` reads
/// `<prefix>/share/locale/<lang>/LC_MESSAGES/handoff.mo`) or where
/// HANDOFF_LOCALEDIR says. libhandoff.so's messages are not translated.
public enum Localization {
    public static let domain = "handoff"

    /// False: every text English (`--json` output is for scripts). Set on
    /// the main thread before any other starts.
    nonisolated(unsafe) public static var translating = true

    /// Takes the person's locale from the environment and binds the
    /// catalogue. Call once, first thing in main: setlocale is not
    /// thread-safe. Without it every text stays English.
    public static func setUp() {
        // A locale the system has not generated (LANG=de_DE.UTF-8 without
        // locales installed) leaves "C", where glibc ignores LANGUAGE;
        // C.UTF-8 keeps LANGUAGE working and UTF-8 text intact.
        if setlocale(LC_ALL, "") == nil { _ = setlocale(LC_ALL, "C.UTF-8") }
        if let directory = directory() { _ = bindtextdomain(domain, directory) }
        _ = bind_textdomain_codeset(domain, "UTF-8")
    }

    /// HANDOFF_LOCALEDIR when set (tests, a build tree: `build/locale`), else `../share/locale` from the
    /// executable's folder; nil (glibc's default folder) when neither is known.
    static func directory() -> String? {
        if let value = getenv("HANDOFF_LOCALEDIR"), value.pointee != 0 { return String(cString: value) }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        var path = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        for _ in 0..<2 {  // <prefix>/bin/handoff -> <prefix>
            guard let slash = path.lastIndex(of: "/") else { return nil }
            path = String(path[..<slash])
        }
        return path + "/share/locale"
    }
}
