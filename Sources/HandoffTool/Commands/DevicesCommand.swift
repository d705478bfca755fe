// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// `handoff devices`: the account's devices the engine heard recently,
/// this one first, with whether each one's channel verified.
enum DevicesCommand: Command {
    static let name = "devices"
    static let summary = "list the account's devices heard recently, and whether each can be reached"
    static let synopsis = ["devices [--listen SECONDS] [--agent | --embedded] [network options]"]
    static let details = """
        Lists this device first, then every other device of the account the engine
        heard recently (its beacons open with the account's key: other accounts'
        devices cannot be listed): name, id, role, when it was last heard, its
        channel address per address family, and whether it is reachable (its
        channel completed a TLS handshake with the account's key), or why not.

        Through the handoff agent (when one runs for this user and account and no
        network option is given) it answers at once from the agent's table. With an
        engine of its own (or --embedded) it listens --listen seconds first, asking
        the others to answer at once. A device is heard while it offers an activity
        (a device that offers nothing sends no beacons); only a device that offers
        this one something is verified, so "reachable" is unknown for the others,
        and for every device when this one is send-only.

        With --json: one object, {"via", "account", "devices": [...]} (docs/cli.md).
        """
    static let options: [OptionSpec] = [
        .value("--listen", "SECONDS", "with an engine of its own, how long to listen for the others (default 5)"),
    ] + NearbySource.options + NetworkOptions.beacons + NetworkOptions.channel

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        Signals.install()
        _ = try NearbySource.mode(arguments)
        let settings = try NetworkOptions.settings(arguments)
        let listen = try arguments.seconds("--listen") ?? 5
        let profile = try Profile.open()
        let account = try profile.account()
        let device = try profile.device()

        let queue = try HostQueue()
        let loop = MainLoop([queue])
        let source = try NearbySource(arguments, settings: settings, account: account, device: device, queue: queue)
        defer { source.stop() }
        if source.engine != nil {
            output.note(tr("Listening {seconds} s for account {account}'s devices {how}…",
                           ["seconds": ListenCheck.format(listen), "account": account.id, "how": source.describe(settings.beacons)]))
            if case .interrupted = loop.run(timeout: listen) { return ExitCode.failure }
        }
        guard let status = try source.status(loop) else { return ExitCode.failure }
        let devices = [DeviceRow(this: status)] + status.remotes.map(DeviceRow.init).sorted {
            ($0.name, $0.id) < ($1.name, $1.id)
        }
        var result: JSONObject = ["via": .string(source.via.rawValue), "account": .string(account.id)]
        result["devices"] = .array(devices.map(\.json))
        let human = tr("Devices of account {account} ({how}):", ["account": account.id, "how": source.describe(settings.beacons)]) + "\n"
            + devices.map(\.text).joined(separator: "\n")
        output.emit(.object(result), human: human)
        if status.remotes.isEmpty {
            output.note(tr("No other device heard. A device is heard while it offers an activity (`handoff publish`, or an app); `handoff doctor` checks this network."))
        }
        return ExitCode.ok
    }
}

/// One device as `handoff devices` shows it (docs/cli.md "devices").
private struct DeviceRow {
    var id: String
    var name: String
    var role: DeviceRole
    var thisDevice = false
    /// Seconds since its last beacon (0 for this device).
    var lastSeen = 0.0
    var addresses: [String] = []
    /// This device: the port its channel listens on.
    var channelPort: UInt16?
    var verified = false
    var lastError: AgentStatus.VerificationError?
    /// The protocol revision its channel agreed on (docs/PROTOCOL.md §10):
    /// this device's own for this device, nil until verified.
    var revision: Int?

    init(this status: AgentStatus) {
        id = hexString(status.deviceID)
        name = status.deviceName
        role = status.role
        thisDevice = true
        channelPort = status.channelPort
        revision = ProtocolRevision.current
    }

    init(_ remote: AgentStatus.Remote) {
        id = hexString(remote.deviceID)
        name = remote.deviceName
        role = remote.role
        lastSeen = Double(remote.lastHeardMilliseconds) / 1000
        addresses = remote.addresses
        verified = remote.verified
        lastError = remote.lastError
        revision = remote.revision
    }

    /// True once its channel verified, false when the latest attempt
    /// failed, nil when none was made (this device; one never verified).
    var reachable: Bool? {
        if thisDevice { return nil }
        if verified { return true }
        return lastError == nil ? nil : false
    }

    var json: JSON {
        var o: JSONObject = ["id": .string(id), "name": .string(name), "role": .string(role.name),
                             "this_device": .bool(thisDevice), "last_seen": .double((lastSeen * 1000).rounded() / 1000),
                             "addresses": .array(addresses.map { .string($0) })]
        o["channel_port"] = channelPort.map { .int(Int64($0)) } ?? .null
        o["reachable"] = reachable.map { .bool($0) } ?? .null
        o["protocol_revision"] = revision.map { .int(Int64($0)) } ?? .null
        if let e = lastError {
            var error: JSONObject = ["address": .string(e.address), "code": .int(Int64(e.error.code.rawValue)),
                                     "name": .string(Output.codeName(e.error.code)), "message": .string(e.error.message)]
            error["ago"] = .double(Double(e.milliseconds) / 1000)
            o["error"] = .object(error)
        } else {
            o["error"] = .null
        }
        return .object(o)
    }

    var text: String {
        var details = [tr("id {id}", ["id": id]), role.name]
        if thisDevice {
            details.append(tr("channel port {port}", ["port": "\(channelPort ?? 0)"]))
            return "* " + tr("{device} (this device)", ["device": name]) + "\n    \(details.joined(separator: ", "))"
        }
        details.append(tr("seen {seconds} s ago", ["seconds": "\(Int(lastSeen.rounded()))"]))
        if !addresses.isEmpty { details.append(addresses.joined(separator: " ")) }
        let state: String
        switch reachable {
        case true? where (revision ?? ProtocolRevision.current) < ProtocolRevision.current:
            state = tr("reachable; runs an older release (protocol revision {revision}): update it to use what is new",
                       ["revision": "\(revision!)"])
        case true?: state = tr("reachable")
        case false?:
            let e = lastError!
            state = tr("unreachable: {address}: {message} (error {code})",
                       ["address": e.address, "message": e.error.message, "code": "\(e.error.code.rawValue)"])
        case nil: state = tr("reachability not checked (it offers this device nothing)")
        }
        return "  \(name)\n    \(details.joined(separator: ", "))\n    \(state)"
    }
}
