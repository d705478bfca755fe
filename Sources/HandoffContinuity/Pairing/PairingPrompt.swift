// SPDX-License-Identifier: MIT OR Apache-2.0
/// How a pairing asks its person to compare the code: the driver shows
/// the code through `PairingEvents.compare` and gets back a prompt, then
/// waits for `fd` to turn readable (or, with `fd` -1, asks at once) and
/// calls `read`: true for "they match", false for "they differ", nil for
/// "no answer yet" (keep waiting). The driver keeps reading the other
/// device meanwhile, so a rejection there ends the prompt.
public struct PairingPrompt {
    public var fd: Int32
    public var read: () -> Bool?

    public init(fd: Int32, read: @escaping () -> Bool?) {
        self.fd = fd
        self.read = read
    }

    /// Answers at once: yes when the code is `expected` (scripts, tests).
    public static func answer(yesIf expected: ComparisonCode, shown: ComparisonCode) -> PairingPrompt {
        PairingPrompt(fd: -1) { shown == expected }
    }
}

/// What a pairing run tells its caller as it goes (on the calling thread).
public struct PairingEvents {
    /// The joiner listens on this TCP port and announces it.
    public var listening: (UInt16) -> Void = { _ in }
    /// The sponsor hears pairing beacons on this UDP port.
    public var beaconsReady: (UInt16) -> Void = { _ in }
    /// A sponsor and a joiner have found each other (the peer's address).
    public var found: (String) -> Void = { _ in }
    /// Sponsor, before `compare`: the name the joiner calls itself (from
    /// its named beacon; unauthenticated until the pairing completes:
    /// show it as "calls itself", beside the code). Not called when the
    /// joiner sent none (an older joiner).
    public var joinerName: (String) -> Void = { _ in }
    /// The code to show; returns how to get the person's answer.
    public var compare: (ComparisonCode) -> PairingPrompt

    public init(compare: @escaping (ComparisonCode) -> PairingPrompt) {
        self.compare = compare
    }
}

/// How a pairing run reaches the other device.
public struct PairingConfiguration: Sendable {
    /// Where pairing beacons go and come from: the discovery port and
    /// groups (docs/PROTOCOL.md §9 says why).
    public var beacons: BeaconTransportConfig
    /// Joiner: the TCP address it listens on (a free port by default).
    public var listenAddress = SocketAddress(host: "::", port: 0)
    public var limits = PairingLimits()
    /// A descriptor that turns readable to interrupt the run (the tool's
    /// signal pipe); -1 for none.
    public var cancelFD: Int32 = -1

    public init(beacons: BeaconTransportConfig) {
        self.beacons = beacons
    }
}

/// A successful pairing.
public struct PairingResult: Sendable, Equatable {
    /// The other device's name, as it sent it.
    public var peerName: String
    /// The account now shared (the public ID).
    public var accountID: String
    /// The code both people compared; nil for a one-time-code pairing.
    public var code: ComparisonCode?
}
