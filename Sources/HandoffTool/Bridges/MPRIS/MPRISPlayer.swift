// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent

/// What the bridge knows of one player on the bus, from its properties
/// (`org.mpris.MediaPlayer2` and `.Player`). A player is input, not trust:
/// every field is what it said, cut to sane sizes by the reader.
struct MPRISPlayer: Equatable {
    static let prefix = "org.mpris.MediaPlayer2."
    static let path = "/org/mpris/MediaPlayer2"
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"

    /// The well-known name (org.mpris.MediaPlayer2.vlc) and its owner (:1.42).
    var busName: String
    var owner: String = ""
    var identity: String?
    var desktopEntry: String?
    var uriSchemes: [String] = []
    var status = "Stopped"
    var canControl = false
    var trackID: String?
    var url: String?
    var title: String?
    var artists: [String] = []
    var rate = 1.0
    /// Microseconds, as the player said at `positionAt` (wall clock, seconds since 1970).
    var positionMicros: Int64 = 0
    var positionAt = 0.0
    /// Raised each time it starts playing: the most recent first.
    var playingSince: UInt64 = 0

    /// The name's suffix, e.g. `vlc` or `mpv.instance1234`.
    var suffix: String { busName.hasPrefix(Self.prefix) ? String(busName.dropFirst(Self.prefix.count)) : busName }
    var isPlaying: Bool { status == "Playing" }

    /// Takes what a GetAll or PropertiesChanged said (missing keys stay).
    mutating func apply(_ properties: BusAnyValue, at now: Double) {
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
    func position(at now: Double) -> Double {
        let base = Double(positionMicros) / 1e6
        return isPlaying ? base + max(0, now - positionAt) * rate : base
    }
}
