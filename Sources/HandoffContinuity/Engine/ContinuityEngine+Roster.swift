// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// The account's devices this one verified, online or not (docs/agent.md
/// §6): what the roster shows, its file, and who hears that it changed.
extension ContinuityEngine {
    /// The account's devices this one verified, online or not (sorted by
    /// name): the roster, with what discovery knows now.
    public var roster: [EngineStatus.RosterDevice] {
        state.withLock { s in
            let (now, wall) = (monotonicSeconds(), wallMilliseconds())
            return s.roster.sorted.map { r in
                let live = s.remotes.entries[r.id]
                let online = live?.verified == true
                return EngineStatus.RosterDevice(
                    id: r.id, name: online ? live!.name : r.name, role: online ? live!.role : r.role, online: online,
                    lastSeen: online ? Self.wall(of: live!.lastHeard, now: now, wall: wall) : r.lastSeen)
            }
        }
    }

    /// A monotonic time as wall-clock milliseconds, as the clocks stand now.
    static func wall(of monotonic: Double, now: Double, wall: UInt64) -> UInt64 {
        let ago = UInt64(max(0, (now - monotonic) * 1000).rounded())
        return wall > ago ? wall - ago : 0
    }

    /// With the state locked: the roster to write, numbered.
    func nextRoster(_ s: inout State) -> DeviceRoster? {
        guard configuration.roster != nil else { return nil }
        s.rosterGeneration += 1
        var r = s.roster
        r.generation = s.rosterGeneration
        return r
    }

    /// Writes a roster (outside the state lock; writers of older
    /// generations skip). A failed write is not fatal: the roster is a
    /// cache of what handshakes teach again.
    func persist(_ roster: DeviceRoster?) {
        guard let roster, let file = configuration.roster else { return }
        rosterWritten.withLock { written in
            guard roster.generation > written else { return }
            written = roster.generation
            try? file.save(roster)
        }
    }

    /// Called (on the engine's threads, outside its locks) when `roster`
    /// shows something else: a device came online (verified), went offline
    /// (left, or not heard within its lifetime), or a verified device's
    /// beacons carry another name. The agent's tray redraws its menu
    /// (docs/agent.md §6 "The tray"). nil stops.
    public func onDevicesChanged(_ handler: (@Sendable () -> Void)?) {
        devicesListener.withLock { $0 = handler }
    }

    func devicesChanged() {
        devicesListener.withLock { $0 }?()
    }
}
