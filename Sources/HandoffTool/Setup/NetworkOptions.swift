// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffContinuity
import HandoffModel

/// The options that say how to reach the account's other devices, shared
/// by nearby, publish and continue. Two processes on one machine hand off
/// over loopback with a beacon port each, no multicast, and each other as
/// unicast peer:
///
///     handoff publish  --beacon-port 52380 --no-multicast --peer 127.0.0.1:52381 ...
///     handoff continue --beacon-port 52381 --no-multicast --peer 127.0.0.1:52380 ID
enum NetworkOptions {
    /// The engine's beacon options: the link, configured peers (numbers or
    /// names) and the tailnet (docs/PROTOCOL.md "Peer sources").
    static let beacons: [OptionSpec] = [
        .value("--beacon-port", "PORT",
               "UDP port of the discovery beacons (default \(BeaconTransportConfig.defaultPort)); each process on one machine needs its own"),
        .repeated("--peer", "HOST:PORT", "also send beacons to this address (IPv4, [IPv6] or a host name, resolved every minute), for networks without multicast"),
        .flag("--no-multicast", "no multicast: only the --peer addresses and the tailnet"),
        .repeated("--interface", "NAME", "multicast on this interface only (default: every interface that is up)"),
        .value("--tailnet-socket", "PATH", "tailscaled's socket, to beacon to this person's tailnet devices (default $HANDOFF_TAILNET_SOCKET, else \(TailnetSource.defaultSocket))"),
        .flag("--no-tailnet", "do not ask tailscaled for tailnet devices"),
    ]

    /// Pairing's beacon options: no engine, so no names and no tailnet.
    static let linkBeacons: [OptionSpec] = [
        .value("--beacon-port", "PORT",
               "UDP port of the discovery beacons (default \(BeaconTransportConfig.defaultPort)); each process on one machine needs its own"),
        .repeated("--peer", "HOST:PORT", "also send beacons to this address (numeric IPv4, or [IPv6]), for networks without multicast"),
        .flag("--no-multicast", "no multicast: only the --peer addresses"),
        .repeated("--interface", "NAME", "multicast on this interface only (default: every interface that is up)"),
    ]

    static let channel: [OptionSpec] = [
        .value("--channel", "HOST:PORT", "address the TLS channel listens on (default [::]:0: IPv6 and IPv4, a free port, announced in beacons)"),
        .value("--connect-timeout", "SECONDS", "time to connect to and authenticate a device (default 3)"),
        .value("--fetch-timeout", "SECONDS", "time a sender's app has to hand over an activity (default 5)"),
    ]

    /// Where beacons go and come from: the numeric --peer addresses (names
    /// are `peerNames`).
    /// `relay`: a relay is configured (the agent's), so --no-multicast
    /// needs no --peer: the relay reaches the devices.
    static func beaconConfig(_ arguments: ParsedArguments, names allowNames: Bool = true,
                             relay: Bool = false) throws(UsageError) -> BeaconTransportConfig {
        var peers: [UDPAddress] = []
        var names = 0
        for text in arguments.values("--peer") {
            switch ConfiguredPeer(text) {
            case .address(let peer)?: peers.append(peer)
            case .name? where allowNames: names += 1
            case .name?:
                throw arguments.usage("--peer \"\(text)\" is a name: here only a numeric HOST:PORT such as 192.168.1.20:52370 or [fe80::1%eth0]:52370")
            case nil:
                throw arguments.usage(
                    "--peer \"\(text)\" is not HOST:PORT such as 192.168.1.20:52370, [fe80::1%eth0]:52370 or ada.local:52370")
            }
        }
        let multicast = !arguments.has("--no-multicast")
        let port = try arguments.port("--beacon-port") ?? BeaconTransportConfig.defaultPort
        if port == 0 && multicast {
            throw arguments.usage("--beacon-port 0 (a free port) works only with --no-multicast: multicast needs the same port on every device")
        }
        if !multicast && peers.isEmpty && names == 0 && arguments.value("--tailnet-socket") == nil && !relay {
            throw arguments.usage("--no-multicast needs at least one --peer HOST:PORT (or --tailnet-socket PATH), or no device can be reached")
        }
        if arguments.has("--no-tailnet") && arguments.value("--tailnet-socket") != nil {
            throw arguments.usage("--no-tailnet and --tailnet-socket contradict each other: give one")
        }
        if port == 0 && arguments.value("--tailnet-socket") != nil {
            throw arguments.usage("--tailnet-socket needs a fixed --beacon-port: the tailnet's devices are sent beacons on it")
        }
        let interfaces = arguments.values("--interface")
        return BeaconTransportConfig(port: port, multicast: multicast, peers: peers,
                                     interfaces: interfaces.isEmpty ? nil : interfaces)
    }

    /// The --peer values that are host names.
    static func peerNames(_ arguments: ParsedArguments) -> [PeerName] {
        arguments.values("--peer").compactMap { text in
            if case .name(let name)? = ConfiguredPeer(text) { return name }
            return nil
        }
    }

    /// tailscaled's socket: --tailnet-socket, none with --no-tailnet, else
    /// the environment's or the default (`TailnetSource.configuredSocket`).
    static func tailnetSocket(_ arguments: ParsedArguments) -> String? {
        if arguments.has("--no-tailnet") { return nil }
        return arguments.value("--tailnet-socket") ?? TailnetSource.configuredSocket()
    }

    /// The network part of the engine's configuration, read and checked
    /// before anything touches the disk or the network.
    struct Settings {
        var beacons: BeaconTransportConfig
        var peerNames: [PeerName] = []
        var tailnetSocket: String? = TailnetSource.configuredSocket()
        var channelAddress: SocketAddress?
        var connectTimeout: Double?
        var fetchTimeout: Double?

        /// The engine's configuration for this account and device.
        func configuration(account: AccountKey, device: DeviceIdentity) -> ContinuityConfiguration {
            var config = ContinuityConfiguration(account: account, device: device, beacons: beacons)
            config.peerNames = peerNames
            config.tailnetSocket = tailnetSocket
            if let channelAddress { config.channelAddress = channelAddress }
            if let connectTimeout {
                config.channelLimits.connectTimeout = connectTimeout
                config.channelLimits.handshakeTimeout = connectTimeout
            }
            if let fetchTimeout { config.fetchTimeout = fetchTimeout }
            return config
        }
    }

    static func settings(_ arguments: ParsedArguments, relay: Bool = false) throws(UsageError) -> Settings {
        var settings = Settings(beacons: try beaconConfig(arguments, relay: relay), peerNames: peerNames(arguments),
                                tailnetSocket: tailnetSocket(arguments))
        if let text = arguments.value("--channel") {
            do {
                settings.channelAddress = try SocketAddress(parsing: text)
            } catch {
                throw arguments.usage("--channel: \(error.message)")
            }
        }
        if let connect = try arguments.seconds("--connect-timeout") {
            guard connect > 0 else { throw arguments.usage("--connect-timeout must be more than 0 seconds") }
            settings.connectTimeout = connect
        }
        if let fetch = try arguments.seconds("--fetch-timeout") {
            guard fetch > 0 else { throw arguments.usage("--fetch-timeout must be more than 0 seconds") }
            settings.fetchTimeout = fetch
        }
        return settings
    }

    /// How the beacons are set up, for a note to the person.
    static func describe(_ config: BeaconTransportConfig, port: UInt16) -> String {
        var parts = [tr("UDP port {port}", ["port": "\(port)"])]
        parts.append(config.multicast ? tr("multicast on") : tr("no multicast"))
        if !config.peers.isEmpty {
            parts.append(tr("peers {peers}", ["peers": config.peers.map(\.description).joined(separator: ", ")]))
        }
        return parts.joined(separator: ", ")
    }
}
