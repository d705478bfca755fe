// SPDX-License-Identifier: MIT OR Apache-2.0

/// The waiting agent's tray (docs/agent.md §10): "Handoff is not set up"
/// and "Pair this device…", which joins another device's account; while
/// that runs, where it is (looking, then the code with its "Pair", which
/// answers as the notification's does) and "Cancel pairing".
/// The wait sets `progress` and calls `changed`. Loop thread.
final class WaitingTrayContent: TrayContent {
    var progress: TrayMenu.JoinProgress? {
        didSet { if progress != oldValue { changed?() } }
    }
    var changed: (() -> Void)?
    private let onPair: () -> Void
    private let onConfirm: () -> Void
    private let onCancel: () -> Void
    /// The name it would join under (nil: not said).
    private let deviceName: () -> String?

    init(onPair: @escaping () -> Void, onConfirm: @escaping () -> Void, onCancel: @escaping () -> Void,
         deviceName: @escaping () -> String? = { nil }) {
        self.onPair = onPair
        self.onConfirm = onConfirm
        self.onCancel = onCancel
        self.deviceName = deviceName
    }

    var look: StatusNotifierItemObject.Look {
        let hint = switch progress {
        case nil: tr("Choose “Pair this device…” to join your other devices")
        case .looking: tr("Looking for your other device…")
        case .comparing(let code): tr("Compare: {code}", ["code": code])
        }
        return .init(status: "Active", iconName: "handoff", toolTipTitle: tr("Handoff is not set up"), toolTipText: hint)
    }

    func menu() -> TrayMenu { .notSetUp(progress, thisDevice: deviceName()) }

    func clicked(_ item: TrayMenu.Item, activationToken: String?) {
        switch item.action {
        case .pairThisDevice: if progress == nil { onPair() }
        case .confirmPairing: if case .comparing = progress { onConfirm() }
        case .cancelPairing: if progress != nil { onCancel() }
        default: break
        }
    }

    /// A click where the host shows no menu starts nothing: pairing
    /// announces this device for two minutes, the person chooses it.
    func activated(activationToken: String?) {}

    var stateSummary: (text: String, fields: [(key: String, value: AgentLogEvent.Value)]) {
        let word = switch progress {
        case nil: "not set up"
        case .looking: "not set up, pairing"
        case .comparing: "not set up, comparing"
        }
        return (word, [("setUp", .bool(false)), ("joining", .bool(progress != nil))])
    }

    func registered() {}
    func stop() {}
}
