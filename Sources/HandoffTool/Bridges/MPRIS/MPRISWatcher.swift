// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBridges
import HandoffDBus
import HandoffJSON
import HandoffModel

/// Watches the `org.mpris.MediaPlayer2.*` names on the session bus and
/// keeps each player's properties fresh: NameOwnerChanged (players come
/// and go), PropertiesChanged on /org/mpris/MediaPlayer2 and Seeked (a
/// re-read of the Player properties, as Position is never signalled).
/// `onChange` runs after every update. Bounds: 32 players; each call has
/// 1 s, a player that does not answer in time is skipped (left as it was).
final class MPRISWatcher {
    static let maxPlayers = 32
    static let callTimeout = 1.0

    let bus: SessionBus
    private(set) var players: [String: MPRISPlayer] = [:]
    private var sequence: UInt64 = 0
    var onChange: () -> Void = {}
    var log: (JSONObject) -> Void = { _ in }

    init(bus: SessionBus) { self.bus = bus }

    func start() throws(DBusError) {
        try bus.subscribe(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                          member: "NameOwnerChanged") { [weak self] reader in
            guard let name = try? reader.string(), name.hasPrefix(MPRISPlayer.prefix),
                  let old = try? reader.string(), let new = try? reader.string() else { return }
            _ = old
            self?.ownerChanged(name, new)
        }
        try bus.subscribe(sender: nil, path: MPRISPlayer.path, interface: "org.freedesktop.DBus.Properties",
                          member: "PropertiesChanged") { [weak self] reader in
            guard let self, let name = self.name(ofOwner: reader.sender),
                  let interface = try? reader.string(), let changed = try? reader.vardict() else { return }
            guard interface == MPRISPlayer.playerInterface || interface == MPRISPlayer.rootInterface else { return }
            self.players[name]?.apply(changed, at: Timestamp.unixNow)
            self.noteStatus(name)
            // Position is not in the signal: read it with the rest.
            self.refresh(name, interface: MPRISPlayer.playerInterface)
        }
        try bus.subscribe(sender: nil, path: MPRISPlayer.path, interface: MPRISPlayer.playerInterface,
                          member: "Seeked") { [weak self] reader in
            guard let self, let name = self.name(ofOwner: reader.sender) else { return }
            self.refresh(name, interface: MPRISPlayer.playerInterface)
        }
        try bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                     member: "ListNames", timeout: 10) { [weak self] result in
            guard let self, case .success(let reader) = result,
                  let names = try? reader.strings(limit: 4096) else { return }
            for name in names.filter({ $0.hasPrefix(MPRISPlayer.prefix) }).sorted() { self.track(name, owner: nil) }
            self.listed = true
        }
    }

    private func name(ofOwner owner: String) -> String? {
        players.values.first(where: { $0.owner == owner && !owner.isEmpty })?.busName
    }

    private func ownerChanged(_ name: String, _ owner: String) {
        if owner.isEmpty {
            if players.removeValue(forKey: name) != nil {
                log(["event": "player-gone", "player": .string(name)])
                onChange()
            }
        } else {
            players.removeValue(forKey: name)
            track(name, owner: owner)
        }
    }

    private func track(_ name: String, owner: String?) {
        guard players[name] == nil else { return }
        guard players.count < Self.maxPlayers else {
            log(["event": "player-skipped", "player": .string(name), "reason": .string("\(Self.maxPlayers) players watched already")])
            return
        }
        players[name] = MPRISPlayer(busName: name, owner: owner ?? "")
        log(["event": "player", "player": .string(name)])
        if owner == nil {
            try? bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                          member: "GetNameOwner", timeout: Self.callTimeout,
                          build: { (w) throws(DBusError) in try w.string(name) }) { [weak self] result in
                if case .success(let reader) = result, let unique = try? reader.string() { self?.players[name]?.owner = unique }
            }
        }
        refresh(name, interface: MPRISPlayer.rootInterface)
        refresh(name, interface: MPRISPlayer.playerInterface)
    }

    /// GetAll of `interface`; the answer updates the player, then `onChange`.
    /// At most one GetAll per player and interface is in flight: a player
    /// that signals faster than it answers gets one more read after the
    /// answer, not a queue of calls (the bus's 128 pending calls stay free).
    func refresh(_ name: String, interface: String, then: (() -> Void)? = nil) {
        let key = name + " " + interface
        if inFlight[key] != nil {
            inFlight[key]!.again = true
            if let then { inFlight[key]!.waiting.append(then) }
            return
        }
        inFlight[key] = (false, then.map { [$0] } ?? [])
        // Position is sampled between the call and its answer: the midpoint.
        let sent = Timestamp.unixNow
        do {
            try bus.call(destination: name, path: MPRISPlayer.path, interface: "org.freedesktop.DBus.Properties",
                         member: "GetAll", timeout: Self.callTimeout, autoStart: false,
                         build: { (w) throws(DBusError) in try w.string(interface) }) { [weak self] result in
                guard let self else { return }
                let state = self.inFlight.removeValue(forKey: key)
                switch result {
                case .success(let reader):
                    if let properties = try? reader.vardict(), self.players[name] != nil {
                        self.players[name]?.apply(properties, at: (sent + Timestamp.unixNow) / 2)
                        self.noteStatus(name)
                        self.onChange()
                    }
                case .failure(let error):
                    self.log(["event": "player-unanswered", "player": .string(name), "message": .string(error.message)])
                }
                if let state, state.again, self.players[name] != nil {
                    // Read again for what changed meanwhile; those waiting hear after it.
                    self.refresh(name, interface: interface) { for done in state.waiting { done() } }
                } else {
                    for done in state?.waiting ?? [] { done() }
                }
            }
        } catch {
            inFlight.removeValue(forKey: key)
            log(["event": "player-unanswered", "player": .string(name), "message": .string(error.message)])
            then?()
        }
    }

    private var inFlight: [String: (again: Bool, waiting: [() -> Void])] = [:]
    private var listed = false

    /// The first look at the bus is done: the players there at start are
    /// known with their properties (a bridge started to continue must not
    /// decide before).
    var isSettled: Bool { listed && inFlight.isEmpty }

    /// A player that now plays and did not before becomes the most recent.
    private var wasPlaying: Set<String> = []
    private func noteStatus(_ name: String) {
        guard let player = players[name] else { return }
        if player.isPlaying && !wasPlaying.contains(name) {
            sequence += 1
            players[name]?.playingSince = sequence
            wasPlaying.insert(name)
        } else if !player.isPlaying {
            wasPlaying.remove(name)
        }
    }

    /// Calls a method of the Player interface (Pause, OpenUri, SetPosition).
    func callPlayer(_ name: String, _ member: String, build: @escaping (MessageWriter) throws(DBusError) -> Void = { _ throws(DBusError) in },
                    done: @escaping (DBusError?) -> Void = { _ in }) {
        do {
            try bus.call(destination: name, path: MPRISPlayer.path, interface: MPRISPlayer.playerInterface, member: member,
                         timeout: Self.callTimeout, autoStart: false, build: build) { result in
                if case .failure(let error) = result { done(error) } else { done(nil) }
            }
        } catch {
            done(error)
        }
    }
}

extension Timestamp {
    /// Seconds since 1970, now (the realtime clock).
    static var unixNow: Double { Timestamp.now.timeIntervalSinceReferenceDate + secondsFrom1970ToReferenceDate }
}
