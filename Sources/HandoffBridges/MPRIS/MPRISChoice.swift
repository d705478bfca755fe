// SPDX-License-Identifier: MIT OR Apache-2.0

/// Which player the bridge offers: the one Playing that started most
/// recently; none Playing, nothing is offered.
public enum MPRISChoice {
    public static func player(_ players: [MPRISPlayer]) -> MPRISPlayer? {
        players.filter(\.isPlaying).max { a, b in
            a.playingSince != b.playingSince ? a.playingSince < b.playingSince : a.busName > b.busName
        }
    }

    /// On the receiving side: a running player that can open `scheme`,
    /// the one with `desktopEntry` first. Every player opens `file` (mpv's
    /// MPRIS plugin, for one, leaves it out of SupportedUriSchemes).
    public static func receiver(_ players: [MPRISPlayer], scheme: String, desktopEntry: String?) -> MPRISPlayer? {
        let able = players.filter { $0.canControl && (scheme == "file" || $0.uriSchemes.contains(scheme)) }
            .sorted { $0.busName < $1.busName }
        if let desktopEntry, let same = able.first(where: { $0.desktopEntry == desktopEntry }) { return same }
        return able.first
    }
}
