// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffJSON
import HandoffAgent
import HandoffContinuity
import HandoffModel

/// `handoff doctor`: checks what Handoff needs on this device and network,
/// and says for each finding what to do.
enum DoctorCommand: Command {
    static let name = "doctor"
    static let summary = "check this device and its network for Handoff, and say what to fix"
    static let synopsis = ["doctor [--listen SECONDS] [--peer HOST:PORT]... [--beacon-port PORT] [--no-multicast] [--tailnet-socket PATH | --no-tailnet] [--channel HOST:PORT]"]
    static let details = """
        Checks, in order: the account file (there, mode 0600, yours), this device's
        identity, the network interfaces and addresses, the beacon UDP port (can it
        be bound, who else listens), multicast group membership (/proc/net/igmp,
        /proc/net/igmp6), this device's own TLS channel, whether beacons of the
        account arrive during a listen window (copies over a second address
        family are counted, not taken for replays; only beacons whose time is
        off warn about clocks), where beacon targets come from (each configured
        peer's name and what it resolves to, the tailnet through tailscaled's
        socket), the channel of every device heard, over each
        address family it was heard on, and of every --peer, hints from the
        firewall rules (nft, iptables; read only, nothing is changed), and the
        history (its database readable by this release, its size and entries,
        the disk left for it, what the agent could not write).

        Each finding is ok, warn or fail, with what was found and what to do.
        doctor exits 1 when any check fails. Here --peer names another device's
        channel (TCP) address, as `handoff publish` and `handoff devices` print it.
        """
    static let options: [OptionSpec] = [
        .value("--listen", "SECONDS", "how long to listen for beacons of other devices (default 5; 0 skips)"),
        .repeated("--peer", "HOST:PORT", "test another device's channel at this TCP address"),
        .value("--beacon-port", "PORT", "the beacon UDP port to check (default \(BeaconTransportConfig.defaultPort))"),
        .flag("--no-multicast", "do not join the multicast groups (check unicast set-ups)"),
        .repeated("--interface", "NAME", "check multicast on this interface only"),
        .value("--tailnet-socket", "PATH", "tailscaled's socket to ask for tailnet devices (default $HANDOFF_TAILNET_SOCKET, else \(TailnetSource.defaultSocket))"),
        .flag("--no-tailnet", "do not ask tailscaled"),
        .value("--channel", "HOST:PORT", "the channel address to test listening on (default [::]:0, IPv6 and IPv4)"),
        .value("--connect-timeout", "SECONDS", "time to connect to and authenticate a channel (default 3)"),
    ] + NearbySource.options

    nonisolated(unsafe) static let checks: [any DoctorCheck.Type] = [
        AccountFileCheck.self, DeviceCheck.self, InterfacesCheck.self, BeaconPortCheck.self, MulticastCheck.self,
        LocalChannelCheck.self, ListenCheck.self, SourcesCheck.self, ChannelCheck.self, FirewallCheck.self, BrowserBridgeCheck.self,
        MPRISBridgeCheck.self, HistoryCheck.self, DocumentsCheck.self,
    ]

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        Signals.install()
        let context = try makeContext(arguments)
        output.note("handoff doctor: " + tr("listening {seconds} s for other devices (through the handoff agent when one serves this account, else on UDP port {port})",
                                        ["seconds": ListenCheck.format(context.listenSeconds), "port": "\(context.beaconConfig.port)"]))
        var findings: [Finding] = []
        for check in checks where !context.interrupted {
            for finding in check.run(context) {
                findings.append(finding)
                if !output.json { output.write(text(finding)) }
            }
        }
        context.source?.stop()
        let failures = findings.filter { $0.status == .fail }.count
        let warnings = findings.filter { $0.status == .warn }.count
        var report: JSONObject = ["ok": .bool(failures == 0), "account": .string(context.account?.id),
                                   "failures": .int(Int64(failures)), "warnings": .int(Int64(warnings)),
                                   "findings": .array(findings.map(\.json))]
        report["via"] = .string(context.source?.via.rawValue)
        if let counts = context.heardBeacons { report["beacons"] = json(counts) }
        if let sources = context.sources { report["sources"] = .array(sources.map(SourcesCheck.json)) }
        if let history = context.history { report["history"] = .object(history) }
        output.emit(.object(report),
                    human: "\n" + tr("{ok} ok, {warnings} warning(s), {failures} failure(s).",
                                  ["ok": "\(findings.count - failures - warnings)", "warnings": "\(warnings)", "failures": "\(failures)"]))
        // Interrupted, the report is incomplete: not a clean bill of health.
        return failures == 0 && !context.interrupted ? ExitCode.ok : ExitCode.failure
    }

    private static func makeContext(_ arguments: ParsedArguments) throws -> DoctorContext {
        var peers: [SocketAddress] = []
        for text in arguments.values("--peer") {
            do {
                peers.append(try SocketAddress(parsing: text))
            } catch {
                throw arguments.usage("--peer: \(error.message)")
            }
        }
        var channel = SocketAddress(host: "::", port: 0)  // the engine's default: both families
        if let text = arguments.value("--channel") {
            do {
                channel = try SocketAddress(parsing: text)
            } catch {
                throw arguments.usage("--channel: \(error.message)")
            }
        }
        var limits = ChannelLimits()
        if let connect = try arguments.seconds("--connect-timeout"), connect > 0 {
            limits.connectTimeout = connect
            limits.handshakeTimeout = connect
        }
        let multicast = !arguments.has("--no-multicast")
        let port = try arguments.port("--beacon-port", allowZero: false) ?? BeaconTransportConfig.defaultPort
        let interfaces = arguments.values("--interface")
        let config = BeaconTransportConfig(port: port, multicast: multicast, peers: [],
                                           interfaces: interfaces.isEmpty ? nil : interfaces)
        if arguments.has("--no-tailnet") && arguments.value("--tailnet-socket") != nil {
            throw arguments.usage("--no-tailnet and --tailnet-socket contradict each other: give one")
        }
        let context = try DoctorContext(arguments, beaconConfig: config, peers: peers, listenSeconds: try arguments.seconds("--listen") ?? 5,
                                        channelAddress: channel, limits: limits)
        context.tailnetSocket = NetworkOptions.tailnetSocket(arguments)
        return context
    }

    /// What the listen window heard, by kind (docs/cli.md).
    static func json(_ counts: BeaconTally) -> JSON {
        ["packets": .int(Int64(counts.packets)), "accepted": .int(Int64(counts.accepted)),
         "duplicates": .int(Int64(counts.duplicates)), "replays": .int(Int64(counts.replays)),
         "stale": .int(Int64(counts.stale)), "foreign": .int(Int64(counts.foreign)), "own": .int(Int64(counts.own))]
    }

    /// ` ok    check   what` and, when there is something to do, `fix: ...`.
    static func text(_ finding: Finding) -> String {
        let status = switch finding.status {
        case .ok: "ok  "
        case .warn: "WARN"
        case .fail: "FAIL"
        }
        var text = "[\(status)] \(finding.check): \(finding.what)\n"
        if let todo = finding.todo { text += "       " + tr("fix: {todo}", ["todo": todo]) + "\n" }
        return text
    }
}
