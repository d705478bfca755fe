// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffJSON
import HandoffAgent
import HandoffContinuity
import HandoffModel
import HandoffRuntime

/// `handoff devices`: the account's devices, this one first: those it
/// verified (online or not, with when each was last seen: the roster) and
/// those heard recently, with whether each one's channel verified.
enum DevicesCommand: Command {
    static let name = "devices"
    static let summary = "list the account's devices, online or offline, and whether each can be reached"
    static let synopsis = ["devices [--listen SECONDS] [--agent | --embedded] [network options]"]
    static let details = """
        Lists this device first, then every other device of the account: those
        verified (online, or offline with when each was last seen; the agent keeps
        them across restarts) and those heard recently (their beacons open with the
        account's key: other accounts' devices cannot be listed): name, id, role,
        online or offline, when it was last seen, its channel address per address
        family, and whether it is reachable (its channel completed a TLS handshake
        with the account's key), or why not.

        Through the handoff agent (when one runs for this user and account and no
        network option is given) it answers at once from the agent's table. With an
        engine of its own (or --embedded) it listens --listen seconds first, asking
        the others to answer at once. Every device answers (one that offers nothing
        with a presence beacon), is verified, and is online while heard within
        150 s; a device that stops says so and is offline at once.

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
        let devices = [DeviceRow(this: status)] + DeviceRow.others(status, now: wallMilliseconds()).sorted {
            ($0.name, $0.id) < ($1.name, $1.id)
        }
        var result: JSONObject = ["via": .string(source.via.rawValue), "account": .string(account.id)]
        result["devices"] = .array(devices.map(\.json))
        let human = tr("Devices of account {account} ({how}):", ["account": account.id, "how": source.describe(settings.beacons)]) + "\n"
            + devices.map(\.text).joined(separator: "\n")
        output.emit(.object(result), human: human)
        if devices.count == 1 {
            output.note(tr("No other device of this account known yet. A device is listed once it is heard (its agent runs, or an app or `handoff publish` offers something); `handoff doctor` checks this network."))
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
    /// Verified and heard within the presence lifetime (the roster's
    /// `online`); nil for this device.
    var online: Bool?
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

    /// The other devices: every one heard (STATUS `remotes`) and every one
    /// verified before (STATUS `roster`), one row each.
    static func others(_ status: AgentStatus, now: UInt64) -> [DeviceRow] {
        let roster = Dictionary(status.roster.map { (hexString($0.deviceID), $0) }, uniquingKeysWith: { a, _ in a })
        var rows: [DeviceRow] = status.remotes.map { remote in
            var row = DeviceRow(remote)
            row.online = roster[row.id]?.online ?? false
            return row
        }
        let heard = Set(rows.map(\.id))
        for d in status.roster where !heard.contains(hexString(d.deviceID)) {
            rows.append(DeviceRow(d, now: now))
        }
        return rows
    }

    init(_ d: AgentStatus.RosterDevice, now: UInt64) {
        id = hexString(d.deviceID)
        name = d.deviceName
        role = d.role
        online = d.online
        lastSeen = now > d.lastSeen ? Double(now - d.lastSeen) / 1000 : 0
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
        o["online"] = online.map { .bool($0) } ?? .null
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
        details.append(online == true ? tr("online, seen {ago}", ["ago": Self.ago(lastSeen)])
                                      : tr("offline, last seen {ago}", ["ago": Self.ago(lastSeen)]))
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
        case nil where online == false && addresses.isEmpty:
            state = tr("not heard now: it is off, out of reach, or its agent is not running")
        case nil: state = tr("reachability not checked yet")
        }
        return "  \(name)\n    \(details.joined(separator: ", "))\n    \(state)"
    }

    /// "12 s ago", "3 min ago", "5 h ago", "2 days ago".
    static func ago(_ seconds: Double) -> String { agoText(seconds) }
}
