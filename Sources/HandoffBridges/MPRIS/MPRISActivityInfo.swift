// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The activity `org.libhandoff.media.playing`: what the sender puts in it
/// and what the receiver reads back (docs/mpris.md "The activity").
public struct MPRISActivityInfo: Equatable {
    public static let type = "org.libhandoff.media.playing"
    public static let bundle = "org.libhandoff.media"
    public static let team = "LIBHANDOFF"
    public static let maxTitleBytes = 256

    public var url: String
    public var homePath: String?
    /// Seconds, at `at` (seconds since 1970).
    public var position: Double
    public var at: Double
    public var playing: Bool
    public var rate: Double
    public var desktopEntry: String?
    public var player: String?

    public init(url: String, homePath: String? = nil, position: Double, at: Double, playing: Bool, rate: Double,
                desktopEntry: String? = nil, player: String? = nil) {
        self.desktopEntry = desktopEntry
        self.player = player
        self.url = url
        self.homePath = homePath
        self.position = position
        self.at = at
        self.playing = playing
        self.rate = rate
    }

    /// "Track — Artist", the track alone, or the file name; cut to 256 bytes.
    public static func title(track: String?, artists: [String], url: String) -> String {
        let artist = artists.filter { !$0.isEmpty }.joined(separator: ", ")
        var text: String
        if let track, !track.isEmpty {
            text = artist.isEmpty ? track : "\(track) — \(artist)"
        } else {
            let last = url.split(separator: "/").last.map(String.init) ?? url
            text = FileURL.percentDecode(Substring(last)) ?? last
        }
        text = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.map(Character.init))
        return cut(text, maxTitleBytes)
    }

    public var userInfo: UserInfo {
        var info: UserInfo = [
            "url": .string(url),
            "position": .real(position),
            "at": .date(Timestamp(timeIntervalSince1970: at)),
            "playing": .boolean(playing),
            "rate": .real(rate),
        ]
        if let homePath { info["home_path"] = .string(homePath) }
        if let desktopEntry { info["desktop_entry"] = .string(Self.cut(desktopEntry, 255)) }
        if let player { info["player"] = .string(Self.cut(player, 255)) }
        return info
    }

    /// Reads what a sender offered; nil (and why) when a required key is
    /// missing or ill-typed.
    public static func parse(_ info: UserInfo) -> Result<MPRISActivityInfo, ParseError> {
        guard case .string(let url)? = info["url"], !url.isEmpty else { return .failure(ParseError("no url")) }
        let position: Double
        switch info["position"] {
        case .real(let r)?: position = r
        case .integer(let i)?: position = Double(i)
        default: return .failure(ParseError("no position"))
        }
        guard position.isFinite, position >= 0 else { return .failure(ParseError("position \(position) is not a time")) }
        guard case .date(let at)? = info["at"] else { return .failure(ParseError("no at")) }
        var playing = false
        if case .boolean(let b)? = info["playing"] { playing = b }
        var rate = 1.0
        if case .real(let r)? = info["rate"], r.isFinite, r > 0, r <= 100 { rate = r }
        var out = MPRISActivityInfo(url: url, position: position,
                                    at: at.timeIntervalSinceReferenceDate + Timestamp.secondsFrom1970ToReferenceDate,
                                    playing: playing, rate: rate)
        if case .string(let s)? = info["home_path"] { out.homePath = s }
        if case .string(let s)? = info["desktop_entry"], !s.isEmpty { out.desktopEntry = s }
        if case .string(let s)? = info["player"], !s.isEmpty { out.player = s }
        return .success(out)
    }

    /// The position to seek to at `now`: extrapolated while playing, never
    /// before 0, and never more than a day past what was sent (a wrong clock).
    public func position(at now: Double) -> Double {
        guard playing else { return position }
        return position + min(max(0, now - at), 86_400) * rate
    }

    public struct ParseError: Error, Equatable {
        public let reason: String
        public init(_ reason: String) { self.reason = reason }
    }

    public static func cut(_ text: String, _ limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var out = ""
        var bytes = 0
        for ch in text {
            if bytes + ch.utf8.count > limit { break }
            out.append(ch)
            bytes += ch.utf8.count
        }
        return out
    }
}
