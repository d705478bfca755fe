// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffBridges
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Whether Firefox and Chromium find the browser bridge's host
/// (docs/browser.md §1): optional, so only a registration that points at
/// nothing runnable is a warning.
enum BrowserBridgeCheck: DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding] {
        let environment = ProcessEnvironment.current
        var registered: [String] = []
        var findings: [Finding] = []
        for (browser, paths) in manifestPaths(environment) {
            guard let path = paths.first(where: { access($0, F_OK) == 0 }) else { continue }
            guard let program = program(in: path) else {
                findings.append(.warn("browser.\(browser.rawValue)", tr("{path} is not a host manifest this version can read", ["path": path]),
                                      todo: tr("`handoff browser-host --install-user` writes it anew")))
                continue
            }
            guard access(program, X_OK) == 0 else {
                findings.append(.warn("browser.\(browser.rawValue)",
                                      tr("{path} names {program}, which is not there to run", ["path": path, "program": program]),
                                      todo: tr("`handoff browser-host --install-user` (or `make install` again) writes it anew")))
                continue
            }
            registered.append("\(browser.rawValue) (\(path))")
        }
        if findings.isEmpty {
            findings.append(.ok("browser", registered.isEmpty
                ? tr("the browser bridge is not set up (optional: `handoff browser-host --install-user`, then load the extension)")
                : tr("the browsers find the Handoff host: {browsers}", ["browsers": registered.joined(separator: ", ")])))
        }
        return findings
    }

    /// Where each browser looks, the user's folder first (it wins).
    static func manifestPaths(_ environment: [String: String]) -> [(HostManifest.Browser, [String])] {
        let name = HostManifest.name + ".json"
        let system: [HostManifest.Browser: [String]] = [
            .firefox: ["/usr/lib/mozilla/native-messaging-hosts/" + name, "/usr/lib64/mozilla/native-messaging-hosts/" + name],
            .chromium: ["/etc/chromium/native-messaging-hosts/" + name],
        ]
        return HostManifest.userManifestPaths(environment: environment).map { browser, user in
            (browser, [user] + (system[browser] ?? []))
        }
    }

    /// The `path` a manifest names, if it reads as one (at most 64 KiB).
    static func program(in path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64 << 10)
        let n = read(fd, &bytes, bytes.count)
        guard n > 0, case .dictionary(let manifest)? = try? UserInfoJSON.decode(Array(bytes[0..<n])),
              case .string(let program)? = manifest["path"] else { return nil }
        return program
    }
}
