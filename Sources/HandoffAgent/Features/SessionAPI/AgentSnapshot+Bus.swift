// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus

/// The snapshot as `org.libhandoff.Agent1`'s properties (docs/agent.md
/// §15): each a plain D-Bus value, the lists `aa{sv}` of open dictionaries
/// (a key with no value, like an offer's missing web page, is left out).
extension AgentSnapshot {
    /// Raised by each addition to `Agent1` (a method, a property, a key).
    static let interfaceVersion: UInt32 = 1

    /// (name, value) in the order the interface lists them.
    var properties: [(String, BusValue)] {
        [("Version", .uint32(Self.interfaceVersion)),
         ("State", .string(state.rawValue)),
         ("ThisDevice", .vardict([("id", .string(thisDevice.id)), ("name", .string(thisDevice.name)),
                                  ("role", .string(thisDevice.role))])),
         ("Offers", .vardicts(offers.map(\.entries))),
         ("Devices", .vardicts(devices.map(\.entries))),
         ("Recent", .vardicts(recent.map(\.entries)))]
    }

    /// The names of the properties whose values differ from `old`'s.
    func changed(since old: AgentSnapshot) -> Set<String> {
        var names: Set<String> = []
        if state != old.state { names.insert("State") }
        if thisDevice != old.thisDevice { names.insert("ThisDevice") }
        if offers != old.offers { names.insert("Offers") }
        if devices != old.devices { names.insert("Devices") }
        if recent != old.recent { names.insert("Recent") }
        return names
    }
}

extension AgentSnapshot.Offer {
    var entries: [(String, BusValue)] {
        var e: [(String, BusValue)] = [
            ("id", .string(id)), ("title", .string(title)), ("type", .string(type)), ("app-id", .string(appID)),
            ("app-name", .string(appName)), ("icon", .string(icon)), ("device-id", .string(deviceID)),
            ("device-name", .string(deviceName)), ("received", .uint64(received))]
        if let webPage { e.append(("web-page", .string(webPage))) }
        return e
    }
}

extension AgentSnapshot.Device {
    var entries: [(String, BusValue)] {
        var e: [(String, BusValue)] = [
            ("id", .string(id)), ("name", .string(name)), ("role", .string(role)), ("online", .bool(online)),
            ("last-seen", .uint64(lastSeen)), ("offer", .bool(offer)), ("accept", .bool(accept)),
            ("history", .bool(history))]
        if let revision { e.append(("revision", .uint32(revision))) }
        return e
    }
}

extension AgentSnapshot.Recent {
    var entries: [(String, BusValue)] {
        [("id", .string(id)), ("title", .string(title)), ("app-id", .string(appID)), ("app-name", .string(appName)),
         ("icon", .string(icon)), ("device-name", .string(deviceName)), ("when", .uint64(when))]
    }
}
