// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffBridges
import HandoffDBus
import HandoffModel
import Testing


/// The MPRIS bridge's pure parts (docs/mpris.md): choosing the player, the
/// URL rules, home-relative paths, the userInfo both ways.
struct MPRISPureTests {
    func player(_ name: String, _ status: String, since: UInt64 = 0, schemes: [String] = [], control: Bool = true,
                entry: String? = nil) -> MPRISPlayer {
        var p = MPRISPlayer(busName: "org.mpris.MediaPlayer2." + name)
        p.status = status
        p.playingSince = since
        p.uriSchemes = schemes
        p.canControl = control
        p.desktopEntry = entry
        return p
    }

    @Test func theMostRecentlyStartedPlayingPlayerIsChosen() {
        let players = [player("a", "Playing", since: 1), player("b", "Paused", since: 5), player("c", "Playing", since: 3)]
        #expect(MPRISChoice.player(players)?.suffix == "c")
        #expect(MPRISChoice.player([player("a", "Paused"), player("b", "Stopped")]) == nil)
        #expect(MPRISChoice.player([]) == nil)
    }

    @Test func theReceiverPrefersTheSendersDesktopEntryAmongPlayersThatCan() {
        let players = [player("a", "Stopped", schemes: ["http"], entry: "vlc"),
                       player("b", "Stopped", schemes: ["http"], entry: "mpv"),
                       player("c", "Stopped", schemes: ["http"], control: false, entry: "mpv")]
        #expect(MPRISChoice.receiver(players, scheme: "http", desktopEntry: "mpv")?.suffix == "b")
        #expect(MPRISChoice.receiver(players, scheme: "http", desktopEntry: "rhythmbox")?.suffix == "a")
        #expect(MPRISChoice.receiver(players, scheme: "rtsp", desktopEntry: nil) == nil)
        // file is taken as supported by every player (mpv-mpris leaves it out).
        #expect(MPRISChoice.receiver(players, scheme: "file", desktopEntry: nil)?.suffix == "a")
    }

    @Test func theURLRules() {
        let home = "/home/ann"
        #expect(MPRISURLRules.offer("https://radio.example/live", home: home, playerSchemes: []) == .offer(url: "https://radio.example/live", homePath: nil))
        #expect(MPRISURLRules.offer("file:///home/ann/Music/a%20b.ogg", home: home, playerSchemes: [])
                == .offer(url: "file:///home/ann/Music/a%20b.ogg", homePath: "Music/a b.ogg"))
        #expect(MPRISURLRules.offer("rtsp://cam/x", home: home, playerSchemes: ["rtsp"]) == .offer(url: "rtsp://cam/x", homePath: nil))
        for refused in ["file:///srv/a.ogg", "file:///home/ann/../bob/a.ogg", "file:///home/annex/a.ogg", "file://nas/home/ann/a.ogg",
                        "https://user:pw@example.com/a", "rtsp://cam/x", "nope", "", "file:///home/ann/a%00b",
                        "https://" + String(repeating: "a", count: 5000)] {
            guard case .refuse = MPRISURLRules.offer(refused, home: home, playerSchemes: []) else {
                Issue.record("offered \(refused.prefix(80))")
                continue
            }
        }
    }

    @Test func homePathsMapBelowTheReceiversHomeOnly() {
        #expect(MPRISURLRules.mapToHome("Music/a.ogg", home: "/home/bo/") == "/home/bo/Music/a.ogg")
        for bad in ["/etc/passwd", "../x", "Music/../../x", "a//b", "./a", "", "a\0b"] {
            #expect(MPRISURLRules.mapToHome(bad, home: "/home/bo") == nil)
        }
        #expect(MPRISURLRules.fileURL("/home/bo/a b#.ogg") == "file:///home/bo/a%20b%23.ogg")
        #expect(MPRISURLRules.filePath(MPRISURLRules.fileURL("/home/bo/é ü.ogg")) == "/home/bo/é ü.ogg")
    }

    @Test func userInfoRoundTripsAndExtrapolates() throws {
        let info = MPRISActivityInfo(url: "file:///home/ann/a.ogg", homePath: "a.ogg", position: 61.5, at: 1_800_000_000,
                                     playing: true, rate: 1.0, desktopEntry: "mpv", player: "mpv")
        let parsed = try MPRISActivityInfo.parse(info.userInfo).get()
        #expect(parsed.url == info.url && parsed.homePath == "a.ogg" && parsed.desktopEntry == "mpv" && parsed.player == "mpv")
        #expect(abs(parsed.at - info.at) < 1e-3)
        #expect(abs(parsed.position(at: parsed.at + 2) - 63.5) < 1e-3)
        var paused = parsed
        paused.playing = false
        #expect(paused.position(at: parsed.at + 2) == 61.5)
        // A wrong clock far ahead moves it at most a day.
        #expect(parsed.position(at: parsed.at + 1e9) <= 61.5 + 86_400 + 1e-3)
        #expect(throws: MPRISActivityInfo.ParseError.self) { try MPRISActivityInfo.parse(["url": .integer(3)]).get() }
        #expect(throws: MPRISActivityInfo.ParseError.self) {
            try MPRISActivityInfo.parse(["url": .string("x:y"), "position": .real(-1), "at": .date(Timestamp())]).get()
        }
    }

    @Test func titles() {
        #expect(MPRISActivityInfo.title(track: "Song", artists: ["Ann", "Bo"], url: "x") == "Song — Ann, Bo")
        #expect(MPRISActivityInfo.title(track: "Song", artists: [], url: "x") == "Song")
        #expect(MPRISActivityInfo.title(track: nil, artists: ["Ann"], url: "file:///m/a%20b.ogg") == "a b.ogg")
        #expect(MPRISActivityInfo.title(track: String(repeating: "é", count: 300), artists: [], url: "x").utf8.count <= 256)
    }

    @Test func propertiesAreTakenFromTheBusShape() {
        var p = MPRISPlayer(busName: "org.mpris.MediaPlayer2.vlc")
        let metadata: BusAnyValue = .dictionary([(.string("xesam:url"), .string("https://e.example/a")),
                                                 (.string("mpris:trackid"), .objectPath("/t/1")),
                                                 (.string("xesam:artist"), .array([.string("Ann")]))])
        p.apply(.dictionary([(.string("PlaybackStatus"), .string("Playing")), (.string("Position"), .integer(2_000_000)),
                             (.string("Rate"), .double(500)), (.string("Metadata"), metadata)]), at: 100)
        #expect(p.isPlaying && p.url == "https://e.example/a" && p.trackID == "/t/1" && p.artists == ["Ann"])
        #expect(p.rate == 1.0)  // 500 is refused
        #expect(abs(p.position(at: 101) - 3.0) < 1e-9)
    }
}
