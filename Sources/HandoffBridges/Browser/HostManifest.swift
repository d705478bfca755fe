// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffJSON
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The native-messaging host manifests that tell each browser where the
/// host is and which extension may start it (docs/browser.md §1).
public enum HostManifest {
    public enum Browser: String, CaseIterable {
        case firefox, chromium
    }

    public static let name = "org.libhandoff.browser"
    /// Firefox's id of the extension (its manifest's gecko id).
    static let firefoxExtension = "browser@libhandoff.org"
    /// Chromium's id of the unpacked extension, fixed by its manifest's
    /// `key` (bridges/browser/extension-id.txt).
    static let chromiumExtension = "cdiicohphfndcodichmbdfomjidpfinc"

    public static func json(for browser: Browser, program: String) -> JSON {
        var o: JSONObject = ["name": .string(name), "description": .string("Handoff for Linux: the browser bridge"),
                             "path": .string(program), "type": .string("stdio")]
        switch browser {
        case .firefox: o["allowed_extensions"] = .array([.string(firefoxExtension)])
        case .chromium: o["allowed_origins"] = .array([.string("chrome-extension://\(chromiumExtension)/")])
        }
        return .object(o)
    }

    /// A launcher script: the browsers start a program without arguments.
    static func launcher(for tool: String) -> String {
        let quoted = tool.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''")
        return "#!/bin/sh\n# Started by the browser for the Handoff extension (docs/browser.md).\nexec '\(quoted)' browser-host \"$@\"\n"
    }

    static func home(_ environment: [String: String]) -> String {
        environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? String(cString: getpwuid(getuid()).pointee.pw_dir)
    }

    public static func userLauncherPath(environment: [String: String]) -> String {
        let data = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home(environment) + "/.local/share"
        return data + "/handoff/browser-host"
    }

    /// Where each browser reads a user's host manifests.
    public static func userManifestPaths(environment: [String: String]) -> [(Browser, String)] {
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home(environment) + "/.config"
        return [(.firefox, home(environment) + "/.mozilla/native-messaging-hosts/\(name).json"),
                (.chromium, config + "/chromium/NativeMessagingHosts/\(name).json")]
    }

    /// Writes the launcher (naming this program) and the user's manifests.
    /// - Returns: the paths written.
    public static func installForUser(environment: [String: String]) throws(HandoffError) -> [String] {
        let script = userLauncherPath(environment: environment)
        try write(launcher(for: ownPath()), to: script, mode: 0o755)
        var written = [script]
        for (browser, path) in userManifestPaths(environment: environment) {
            try write(json(for: browser, program: script).text + "\n", to: path, mode: 0o644)
            written.append(path)
        }
        return written
    }

    /// This program's absolute path.
    static func ownPath() throws(HandoffError) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { throw HandoffError(.io, "cannot tell where this program is (/proc/self/exe)") }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes `text` to `path` through a temporary file renamed over it,
    /// making the folders it needs (0755).
    static func write(_ text: String, to path: String, mode: mode_t) throws(HandoffError) {
        var folder = ""
        for part in path.split(separator: "/").dropLast() {
            folder += "/" + part
            if mkdir(folder, 0o755) != 0 && errno != EEXIST {
                throw HandoffError(.io, "cannot create \(folder): \(String(cString: strerror(errno)))")
            }
        }
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw HandoffError(.io, "cannot write \(path): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let wrote = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        fchmod(fd, mode)
        close(fd)
        guard wrote == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw HandoffError(.io, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
