// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffBridges
import HandoffContinuity
import HandoffJSON
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// `handoff browser-host`: the browsers' native-messaging host for the
/// Handoff extension (docs/browser.md). A browser starts it; a person
/// runs it only to register it (`--install-user`) or to see a manifest.
enum BrowserHostCommand: Command {
    static let name = "browser-host"
    static let summary = "the browser extension's native-messaging host (started by the browser)"
    static let synopsis = [
        "browser-host [ORIGIN | MANIFEST EXTENSION-ID]",
        "browser-host --install-user",
        "browser-host --print-manifest firefox|chromium [--program PATH]",
    ]
    static let details = """
        Firefox and Chromium start this program when the Handoff extension
        (bridges/browser/extension) connects, and speak to it on its standard input
        and output: 32-bit lengths and JSON (docs/browser.md). The page of the
        focused browser window becomes this device's current activity, as Safari's
        does on Apple's devices (type NSUserActivityTypeBrowsingWeb, the page's
        title and address), offered through the handoff agent; a page another
        device hands to this one opens in a new tab. It runs as the app
        org.libhandoff.browser of team LIBHANDOFF, through the agent only. The
        arguments the browsers pass (Chromium: the extension's origin; Firefox: the
        host manifest's path and the extension's id) are logged, nothing more; the
        log goes to standard error, which the browsers keep.

        --install-user writes the host manifests for this user where Firefox
        (~/.mozilla/native-messaging-hosts) and Chromium
        (~/.config/chromium/NativeMessagingHosts) look, naming a small launcher
        script (~/.local/share/handoff/browser-host) that starts this program.
        `make install` puts them system-wide instead.

        --print-manifest prints the host manifest for one browser (for packagers);
        --program names the launcher it points at (default: the one
        --install-user writes).
        """
    static let options: [OptionSpec] = [
        .flag("--install-user", "write the host manifests for this user and exit"),
        .value("--print-manifest", "BROWSER", "print the host manifest for firefox or chromium and exit"),
        .value("--program", "PATH", "with --print-manifest: the launcher the manifest names"),
    ]
    static let positionals = 0...2

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        if let browser = arguments.value("--print-manifest") {
            guard let kind = HostManifest.Browser(rawValue: browser) else {
                throw arguments.usage("\"\(browser)\" is not a browser this host knows: firefox or chromium")
            }
            let program = arguments.value("--program") ?? HostManifest.userLauncherPath(environment: ProcessEnvironment.current)
            output.write(HostManifest.json(for: kind, program: program).text + "\n")
            return ExitCode.ok
        }
        if arguments.has("--install-user") {
            let written = try HostManifest.installForUser(environment: ProcessEnvironment.current)
            for path in written { output.note(tr("Wrote {path}", ["path": path])) }
            output.emit(["written": .array(written.map { .string($0) })],
                        human: tr("The browsers find the Handoff host now; load the extension (bridges/browser/extension/README.md)."))
            return ExitCode.ok
        }
        Signals.install()
        let log: (String) -> Void = { Output.write("handoff browser-host: \($0)\n", to: 2) }
        if !arguments.positionals.isEmpty { log("started by \(arguments.positionals.joined(separator: " "))") }
        let manifest = try BrowserHost.manifest()
        let host = BrowserHost(input: 0, output: 1, log: log) { (delegate) throws(HandoffError) in
            let account = try Profile.open().account()
            let choice = ContinuityModeChoice(mode: .agent, accountID: account.id)
            let (service, _) = try choice.start(manifest: manifest) { () throws(HandoffError) -> any ContinuityService in
                throw HandoffError(.connectionUnavailable, "the handoff agent is not running")
            }
            return (try Application(manifest: manifest, delegate: delegate, continuity: service), service as? AgentClient)
        }
        return host.run(MainLoop())
    }
}
