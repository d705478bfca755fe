// SPDX-License-Identifier: MIT OR Apache-2.0

/// What the tray shows and what its clicks do (docs/agent.md §6 "The
/// tray"), apart from the bus work `AgentTray` does for any of them: the
/// running agent's offers, devices and pause (`OffersTrayContent`), or the
/// waiting agent's "not set up" and its pairing (`WaitingTrayContent`,
/// §10). Loop thread.
protocol TrayContent: AnyObject {
    /// The icon, status and tooltip now.
    var look: StatusNotifierItemObject.Look { get }
    /// The menu now, built whole (the dbusmenu object compares builds).
    func menu() -> TrayMenu
    /// A click on `item`; `activationToken`: the host's for this click
    /// (`ProvideXdgActivationToken`), for the app it launches or raises.
    func clicked(_ item: TrayMenu.Item, activationToken: String?)
    /// The host's Activate (a click where it shows no menu), with its token.
    func activated(activationToken: String?)
    /// The tray's state line says this after "tray: registered, ".
    var stateSummary: (text: String, fields: [(key: String, value: AgentLogEvent.Value)]) { get }
    /// Set by the tray: call it when what is shown changed.
    var changed: (() -> Void)? { get set }
    /// A watcher took the item.
    func registered()
    /// Seconds until what the menu shows changes by itself (a "last seen
    /// 5 min ago"), when it does; nil: only when `changed` is called. The
    /// tray looks again then, without waking otherwise (docs/agent.md §8).
    var lookInterval: Double? { get }
    /// The tray stops: let go of what it listens to.
    func stop()
}

extension TrayContent {
    var lookInterval: Double? { nil }
}
