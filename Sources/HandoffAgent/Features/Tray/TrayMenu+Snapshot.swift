// SPDX-License-Identifier: MIT OR Apache-2.0

/// The menu of a snapshot: the tray shows what the session-bus API
/// serves (docs/agent.md §15), in its own words.
extension TrayMenu {
    /// `now`: ms since the epoch, for "last seen N min ago".
    init(_ snapshot: AgentSnapshot, offerID: (String) -> Int32, now: UInt64) {
        self.init(offers: snapshot.offers, offerID: offerID,
                  devices: snapshot.devices.map { TrayDevice($0, now: now) }, paused: snapshot.state == .paused,
                  recent: snapshot.recent.compactMap(Recent.init), thisDevice: snapshot.thisDevice.name)
    }
}

extension TrayMenu.Recent {
    /// "Title — App (from Desk)"; this device's own entries need no "from"
    /// (nil: not an entry's number).
    init?(_ recent: AgentSnapshot.Recent) {
        guard let entry = Int64(recent.id) else { return nil }
        let what = recent.appName.isEmpty ? recent.title : tr("{title} — {app}", ["title": recent.title, "app": recent.appName])
        self.init(entry: entry, label: recent.fromThisDevice ? what : tr("{title} (from {device})", ["title": what, "device": recent.deviceName]),
                  iconName: TrayMenu.themed(recent.icon))
    }
}

extension TrayDevice {
    init(_ device: AgentSnapshot.Device, now: UInt64) {
        self.init(name: device.name, online: device.online,
                  lastSeenSecondsAgo: now > device.lastSeen ? Double(now - device.lastSeen) / 1000 : 0)
    }
}
