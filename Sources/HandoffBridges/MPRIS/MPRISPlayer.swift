// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus

/// What the bridge knows of one player on the bus, from its properties
/// (`org.mpris.MediaPlayer2` and `.Player`). A player is input, not trust:
/// every field is what it said, cut to sane sizes by the reader.
public struct MPRISPlayer: Equatable {
    public static let prefix = "org.mpris.MediaPlayer2."
    public static let path = "/org/mpris/MediaPlayer2"
    public static let rootInterface = "org.mpris.MediaPlayer2"
    public static let playerInterface = "org.mpris.MediaPlayer2.Player"

    /// The well-known name (org.mpris.MediaPlayer2.vlc) and its owner (:1.42).
    public var busName: String
    public var owner: String = ""
    public var identity: String?
    public var desktopEntry: String?
    public var uriSchemes: [String] = []
    public var status = "Stopped"
    public var canControl = false
    public var trackID: String?
    public var url: String?
    public var title: String?
    public var artists: [String] = []
    public var rate = 1.0
    /// Microseconds, as the player said at `positionAt` (wall clock, seconds since 1970).
    public var positionMicros: Int64 = 0
    public var positionAt = 0.0
    /// Raised each time it starts playing: the most recent first.
    public var playingSince: UInt64 = 0

    public init(busName: String, owner: String = "") {
        self.busName = busName
        self.owner = owner
    }

    /// The name's suffix, e.g. `vlc` or `mpv.instance1234`.
    public var suffix: String { busName.hasPrefix(Self.prefix) ? String(busName.dropFirst(Self.prefix.count)) : busName }
    public var isPlaying: Bool { status == "Playing" }

    /// Takes what a GetAll or PropertiesChanged said (missing keys stay).
    public mutating func apply(_ properties: BusAnyValue, at now: Double) {
        if let v = properties["Identity"]?.string { identity = v }
        if let v = properties["DesktopEntry"]?.string { desktopEntry = v.isEmpty ? nil : v }
        if let v = properties["SupportedUriSchemes"] { uriSchemes = Array(v.strings.prefix(32)).map { $0.lowercased() } }
        if let v = properties["PlaybackStatus"]?.string { status = v }
        if let v = properties["CanControl"]?.bool { canControl = v }
        if let v = properties["Rate"]?.number, v.isFinite, v > 0, v <= 100 { rate = v }
        if let v = properties["Position"]?.number, v.isFinite {
            positionMicros = Int64(max(0, min(v, 1e15)))
            positionAt = now
        }
        if let metadata = properties["Metadata"] {
            trackID = metadata["mpris:trackid"]?.string
            url = metadata["xesam:url"]?.string
            title = metadata["xesam:title"]?.string
            artists = Array((metadata["xesam:artist"]?.strings ?? []).prefix(8))
        }
    }

    /// The position now, extrapolated while playing (seconds).
    public func position(at now: Double) -> Double {
        let base = Double(positionMicros) / 1e6
        return isPlaying ? base + max(0, now - positionAt) * rate : base
    }
}
