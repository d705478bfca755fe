// SPDX-License-Identifier: MIT OR Apache-2.0
import CHandoffHeader
import HandoffContinuity
import HandoffModel
import HandoffRuntime

// handoff_account_* and handoff_application_start_continuity: see
// include/handoff.h, "Accounts and continuity between devices".

/// The object behind a `handoff_account *`.
final class AccountBox {
    let key: AccountKey
    let id: CStringSlot
    init(_ key: AccountKey) {
        self.key = key
        id = CStringSlot()
        _ = id.pointer(for: key.derived.accountID)
    }
}

private func account(_ p: OpaquePointer?) throws(HandoffError) -> AccountBox {
    Handle.object(try CArgument.handle(p, "account"))
}

private func store(_ directory: UnsafePointer<CChar>?) throws(HandoffError) -> AccountStore {
    if let directory = try CArgument.optionalString(directory, "directory") { return AccountStore(directory: directory) }
    return AccountStore(directory: try AccountStore.defaultDirectory())
}

@c @implementation public func handoff_account_new() -> OpaquePointer? {
    Handle.retained(AccountBox(AccountKey.generate()))
}

@c @implementation public func handoff_account_from_pairing_code(_ code: UnsafePointer<CChar>?) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        Handle.retained(AccountBox(try AccountKey(pairingCode: try CArgument.string(code, "code"))))
    }
}

@c @implementation public func handoff_account_from_key(_ key: UnsafeRawPointer?, _ length: Int) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        guard key != nil, length == AccountKey.size else {
            throw HandoffError(.invalidArgument, "an account key is \(AccountKey.size) bytes; got \(key == nil ? "NULL" : "\(length)")")
        }
        return Handle.retained(AccountBox(try AccountKey(bytes: try CArgument.bytes(key, length, "key"))))
    }
}

@c @implementation public func handoff_account_load(_ directory: UnsafePointer<CChar>?) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in Handle.retained(AccountBox(try store(directory).loadAccount())) }
}

@c @implementation public func handoff_account_save(_ a: OpaquePointer?, _ directory: UnsafePointer<CChar>?) -> Int32 {
    Thunk.status { () throws(HandoffError) in try store(directory).saveAccount(try account(a).key) }
}

@c @implementation public func handoff_account_copy_pairing_code(_ a: OpaquePointer?) -> UnsafeMutablePointer<CChar>? {
    Thunk.value { () throws(HandoffError) in CMemory.string(try account(a).key.pairingCode) }
}

@c @implementation public func handoff_account_get_id(_ a: OpaquePointer?) -> UnsafePointer<CChar>? {
    Thunk.value { () throws(HandoffError) in
        let box = try account(a)
        return box.id.pointer(for: box.key.derived.accountID)
    }
}

@c @implementation public func handoff_account_free(_ a: OpaquePointer?) {
    Handle.release(a, as: AccountBox.self)
}

// MARK: Starting continuity

@c @implementation public func handoff_application_start_continuity(_ a: OpaquePointer?,
                                                                     _ options: UnsafePointer<handoff_continuity_options>?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let application: Application = Handle.object(try CArgument.handle(a, "app"))
        guard let options else { throw HandoffError(.invalidArgument, "options is NULL; start from HANDOFF_CONTINUITY_OPTIONS_INIT") }
        let o = try CStruct(options, "handoff_continuity_options")
        guard application.continuityService == nil else {
            throw HandoffError(.invalidState, "continuity is already started for this application")
        }
        var choice = try ContinuityOptions.choice(from: o)
        choice.follow = true  // AUTO follows the agent coming and going
        // Read now: `options` is the caller's only during this call, and
        // AUTO makes an engine again each time the agent goes.
        let configuration = Result { () throws(HandoffError) in try ContinuityOptions.configuration(from: o) }
        let (service, _) = try choice.start(manifest: application.manifest) { () throws(HandoffError) in
            try ContinuityEngine(configuration: try configuration.get())
        }
        do throws(HandoffError) {
            try application.start(service)
        } catch {
            service.detach()  // another thread started continuity meanwhile
            throw error
        }
    }
}

@c @implementation public func handoff_application_get_continuity_mode(_ a: OpaquePointer?,
                                                                        _ out: UnsafeMutablePointer<handoff_continuity_mode>?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let application: Application = Handle.object(try CArgument.handle(a, "app"))
        let out = try CArgument.out(out, "out")
        guard let service = application.continuityService else {
            throw HandoffError(.invalidState, "continuity is not started for this application: call handoff_application_start_continuity first")
        }
        let onAgent = (service as? FollowingContinuityService).map { $0.mode == .agent } ?? (service is AgentClient)
        out.pointee = onAgent ? HANDOFF_CONTINUITY_MODE_AGENT : HANDOFF_CONTINUITY_MODE_EMBEDDED
    }
}

/// Turns the host's options into a configuration, checking each field.
enum ContinuityOptions {
    /// The mode and what decides it (docs/agent.md §3 "Choosing the mode").
    static func choice(from o: CStruct<handoff_continuity_options>) throws(HandoffError) -> ContinuityModeChoice {
        guard let accountPointer = o.field(\.account) ?? nil else {
            throw HandoffError(.invalidArgument, "options.account is NULL: load, create or join an account first")
        }
        let mode: ContinuityMode
        switch o.field(\.mode) ?? HANDOFF_CONTINUITY_MODE_AUTO {  // an older, smaller struct: AUTO
        case HANDOFF_CONTINUITY_MODE_AUTO: mode = .automatic
        case HANDOFF_CONTINUITY_MODE_AGENT: mode = .agent
        case HANDOFF_CONTINUITY_MODE_EMBEDDED: mode = .embedded
        case let other: throw HandoffError(.invalidArgument, "options.mode \(other.rawValue) is not a handoff_continuity_mode")
        }
        var choice = ContinuityModeChoice(mode: mode, accountID: Handle.object(accountPointer, as: AccountBox.self).key.derived.accountID)
        var named: [String] = []
        if (o.field(\.device_id) ?? nil) != nil { named.append("device_id") }
        if (o.field(\.device_name) ?? nil) != nil { named.append("device_name") }
        if (o.field(\.role) ?? HANDOFF_DEVICE_ROLE_FULL) != HANDOFF_DEVICE_ROLE_FULL { named.append("role") }
        if (o.field(\.beacon_port) ?? 0) != 0 { named.append("beacon_port") }
        if (o.field(\.disable_multicast) ?? 0) != 0 { named.append("disable_multicast") }
        if (o.field(\.peer_count) ?? 0) != 0 { named.append("peers") }
        if (o.field(\.channel_address) ?? nil) != nil { named.append("channel_address") }
        choice.deviceSettings = named
        let fetch = Int(o.field(\.fetch_timeout_ms) ?? 0)
        let connect = Int(o.field(\.connect_timeout_ms) ?? 0)
        guard fetch >= 0, connect >= 0 else { throw HandoffError(.invalidArgument, "timeouts cannot be negative") }
        if fetch > 0 { choice.fetchTimeout = Double(fetch) / 1000 }
        if connect > 0 { choice.connectTimeout = Double(connect) / 1000 }
        return choice
    }

    static func configuration(from o: CStruct<handoff_continuity_options>) throws(HandoffError) -> ContinuityConfiguration {
        guard let accountPointer = o.field(\.account) ?? nil else {
            throw HandoffError(.invalidArgument, "options.account is NULL: load, create or join an account first")
        }
        let key = Handle.object(accountPointer, as: AccountBox.self).key
        let port = Int(o.field(\.beacon_port) ?? 0)
        guard (0...65535).contains(port) else { throw HandoffError(.invalidArgument, "options.beacon_port \(port) is not a port") }
        let peerCount = o.field(\.peer_count) ?? 0
        var peers: [UDPAddress] = []
        var peerNames: [PeerName] = []
        for text in try CArgument.strings(o.field(\.peers) ?? nil, peerCount, "options.peers") {
            switch ConfiguredPeer(text) {
            case .address(let peer)?: peers.append(peer)
            case .name(let name)?: peerNames.append(name)
            case nil:
                throw HandoffError(.invalidArgument,
                                   "peer \"\(text)\" is not host:port such as 127.0.0.1:52371, [::1]:52371 or ada.local:52370")
            }
        }
        let beacons = BeaconTransportConfig(port: port == 0 ? 52370 : UInt16(port),
                                            multicast: (o.field(\.disable_multicast) ?? 0) == 0,
                                            peers: peers, interfaces: nil)
        var channelAddress: SocketAddress?
        if let text = try CArgument.optionalString(o.field(\.channel_address) ?? nil, "options.channel_address") {
            channelAddress = try SocketAddress(parsing: text)
        }
        let fetch = Int(o.field(\.fetch_timeout_ms) ?? 0)
        let connect = Int(o.field(\.connect_timeout_ms) ?? 0)
        guard fetch >= 0, connect >= 0 else { throw HandoffError(.invalidArgument, "timeouts cannot be negative") }
        // Last: options refused above never create the device file.
        var config = ContinuityConfiguration(account: key, device: try device(from: o), beacons: beacons)
        if let channelAddress { config.channelAddress = channelAddress }
        config.peerNames = peerNames
        // The person's device (no explicit id): the person's settings too,
        // read at start and on every change (docs/agent.md "Settings").
        if (o.field(\.device_id) ?? nil) == nil { config.settingsDirectory = try? AccountStore.defaultDirectory() }
        if fetch > 0 { config.fetchTimeout = Double(fetch) / 1000 }
        if connect > 0 {
            config.channelLimits.connectTimeout = Double(connect) / 1000
            config.channelLimits.handshakeTimeout = Double(connect) / 1000
        }
        let reuse = Int(o.field(\.connection_reuse_ms) ?? 0)
        if reuse != 0 { config.idleConnectionLifetime = reuse < 0 ? 0 : Double(reuse) / 1000 }
        return config
    }

    /// Who this device is. An explicit id is used as given (name: the
    /// option, else the host name). Without one, the person's device file
    /// (`handoff device`; created named after the host on first use, the
    /// first process to create it winning) gives the id, and the name and
    /// role unless the options set them.
    static func device(from o: CStruct<handoff_continuity_options>) throws(HandoffError) -> DeviceIdentity {
        let name = try CArgument.optionalString(o.field(\.device_name) ?? nil, "options.device_name")
        let role: DeviceRole?
        switch o.field(\.role) ?? HANDOFF_DEVICE_ROLE_FULL {
        case HANDOFF_DEVICE_ROLE_FULL: role = nil  // the default: the device file's role, if any
        case HANDOFF_DEVICE_ROLE_SEND_ONLY: role = .sendOnly
        case let other: throw HandoffError(.invalidArgument, "options.role \(other.rawValue) is not a handoff_device_role")
        }
        if let id = try CArgument.optionalString(o.field(\.device_id) ?? nil, "options.device_id") {
            return try DeviceIdentity(id: id, name: name ?? currentHostName(), role: role ?? .full)
        }
        let store = AccountStore(directory: try AccountStore.defaultDirectory())
        var device = try store.loadOrCreateDevice(defaultName: DefaultDeviceName.current())
        if let name {
            try DeviceIdentity.validateName(name)
            device.name = name
        }
        if let role { device.role = role }
        return device
    }
}
