// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import HandoffTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

private func parse(_ text: String) throws(HandoffError) -> HandoffSettings {
    try HandoffSettings(bytes: Array(text.utf8), source: "s")
}

private func failure(_ body: () throws -> Void) -> HandoffError? {
    do { try body() } catch { return error as? HandoffError }
    return nil
}

private let deviceA = "0123456789abcdef0123456789abcdef"
private let deviceB = "fedcba9876543210fedcba9876543210"

/// The settings file (docs/agent.md "Settings"): strict about what it
/// knows, keeps what it does not, bounded; its text reads back the same.
@Suite struct HandoffSettingsTests {
    /// A running engine applies settings only when they differ: settings
    /// that differ in their documents part alone differ.
    @Test func settingsThatDifferInDocumentsAloneDiffer() {
        var other = HandoffSettings.defaults
        other.documents.maxSize = 1000
        #expect(other != HandoffSettings.defaults)
        other = HandoffSettings.defaults
        other.documents.folders = ["Papers": "/home/alice/Papers"]
        #expect(other != HandoffSettings.defaults)
    }

    @Test func emptyAndAbsentAreTheDefaults() throws {
        #expect(try parse("") == .defaults)
        #expect(try parse("# nothing set\n\n") == .defaults)
        #expect(try parse("[Handoff]\n") == .defaults)
    }

    @Test func everyKnownKeyIsRead() throws {
        let s = try parse("""
            [Handoff]
            Paused = true
            [Device \(deviceA)]
            Name=Laptop
            Offer=false
            [Device \(deviceB)]
            Accept=false
            [App com.example.Notes]
            Muted=true
            [App com.example.Other]
            Muted=false
            WebDomains=false
            """)
        #expect(s.webDomainsOff == ["com.example.Other"])
        #expect(!s.webDomainsAllowed(for: "com.example.Other") && s.webDomainsAllowed(for: "com.example.Notes"))
        #expect(s.paused)
        #expect(s.devices[deviceA] == .init(offer: false, accept: true, name: "Laptop"))
        #expect(s.devices[deviceB] == .init(offer: true, accept: false))
        #expect(s.mutedApps == ["com.example.Notes"])
        // Paused: nothing at all.
        #expect(!s.offers(to: deviceB) && !s.accepts(from: deviceA))
        var on = s
        on.paused = false
        #expect(!on.offers(to: deviceA) && on.offers(to: deviceB) && on.offers(to: "00000000000000000000000000000000"))
        #expect(on.accepts(from: deviceA) && !on.accepts(from: deviceB))
        #expect(on.isMuted("com.example.Notes") && !on.isMuted("com.example.Other"))
    }

    @Test func roundTrip() throws {
        var s = HandoffSettings(paused: true, devices: [deviceA: .init(offer: false, accept: false, name: "Kitchen PC"),
                                                        deviceB: .init(offer: true, accept: false)],
                                mutedApps: ["org.example.a", "com.example.b-c_d"])
        s.webDomainsOff = ["org.example.a", "org.example.docs"]
        #expect(try HandoffSettings(bytes: s.fileBytes, source: "s") == s)
        #expect(String(decoding: s.fileBytes, as: UTF8.self).contains("[App org.example.docs]\nWebDomains=false\n"))
        // Default rules are not written.
        s.devices[deviceB] = .init()
        let text = String(decoding: s.fileBytes, as: UTF8.self)
        #expect(!text.contains(deviceB))
        #expect(try HandoffSettings(bytes: s.fileBytes, source: "s") == s)
        // The same settings give the same bytes.
        #expect(try HandoffSettings(bytes: s.fileBytes, source: "s").fileBytes == s.fileBytes)
    }

    /// The documents bridge's opt-outs (docs/documents.md §7): an app's
    /// documents off, read and written back; a bad value refuses the file.
    @Test func anAppsDocumentsOff() throws {
        let s = try parse("""
            [App org.xfce.mousepad]
            Documents=false
            [App org.gnome.TextEditor]
            Muted=true
            Documents=true
            """)
        #expect(s.documentsOffApps == ["org.xfce.mousepad"])
        #expect(try HandoffSettings(bytes: s.fileBytes, source: "s") == s)
        #expect(String(decoding: s.fileBytes, as: UTF8.self).contains("[App org.xfce.mousepad]\nDocuments=false\n"))
        var other = s
        other.documentsOffApps = []
        #expect(other != s)
        #expect(throws: HandoffError.self) { try parse("[App org.xfce.mousepad]\nDocuments=no\n") }
    }

    /// Groups and keys of a newer version: ignored, and written back.
    @Test func unknownGroupsAndKeysAreKept() throws {
        let text = """
            [Handoff]
            Paused=false
            Theme=dark
            [Device \(deviceA)]
            Offer=false
            Colour=red
            [Schedule]
            Quiet=22-07
            [Empty]
            """
        var s = try parse(text)
        #expect(s.devices[deviceA]?.offer == false)
        s.paused = true
        s.devices[deviceA] = .init()  // back to the default: its unknown key stays
        let back = String(decoding: s.fileBytes, as: UTF8.self)
        for line in ["Theme=dark", "Colour=red", "[Schedule]", "Quiet=22-07", "[Empty]", "[Device \(deviceA)]"] {
            #expect(back.contains(line), "\(line) lost: \(back)")
        }
        let again = try HandoffSettings(bytes: s.fileBytes, source: "s")
        #expect(again == s && again.paused)
    }

    @Test func damageIsRefusedNamingTheLine() {
        let cases: [(String, String)] = [
            ("[Handoff]\nPaused=yes\n", "s:2: [Handoff] Paused: \"yes\" is not a boolean"),
            ("[Handoff]\nPaused=True\n", "is not a boolean"),
            ("[Device 0123]\nOffer=false\n", "is not a device id"),
            ("[Device \(deviceA.uppercased())]\nOffer=false\n", "is not a device id"),
            ("[App a b]\nMuted=true\n", "is not a bundle identifier"),
            ("[App ]\nMuted=true\n", "is not a bundle identifier"),
            ("Paused=true\n", "s:1: a key before any [group]"),
            ("[Handoff]\nPaused=true\nPaused=false\n", "Paused appears twice"),
            ("[Handoff]\n[Handoff]\n", "group [Handoff] appears twice"),
            ("[Handoff]\r\nPaused=true\r\n", "carriage return"),
            ("[Handoff]\nPaused\n", "neither a [group] header"),
        ]
        for (text, expected) in cases {
            let error = failure { _ = try parse(text) }
            #expect(error?.code == .malformedData, "\(text)")
            #expect(error?.message.contains(expected) == true, "\(text): \(error?.message ?? "accepted")")
        }
        #expect(failure { _ = try HandoffSettings(bytes: [0x5B, 0xFF, 0x5D], source: "s") }?.message.contains("UTF-8") == true)
    }

    @Test func bounded() {
        let big = "[Handoff]\n#" + String(repeating: "x", count: 64 << 10) + "\n"
        #expect(failure { _ = try parse(big) }?.message.contains("limit") == true)
        var many = ""
        for i in 0..<600 { many += "[App a\(i)]\nMuted=true\n" }
        #expect(failure { _ = try parse(many) }?.message.contains("more than 512 groups") == true)
    }

    /// The store: absent is the defaults, damaged is the defaults and the
    /// reason, writes are atomic with mode 0600, and a damaged file is
    /// never overwritten by an update.
    @Test func store() throws {
        try AccountFixtures.withTemporaryDirectory { root in
            let store = SettingsStore(directory: root + "/handoff")
            #expect(store.load().settings == .defaults && store.load().problem == nil)
            let written = try store.update { $0.paused = true }
            #expect(written.paused && store.load().settings.paused)
            #expect(AccountFixtures.mode(store.path) == 0o600)
            AccountFixtures.write(store.path, "[Handoff]\nPaused=maybe\n")
            let loaded = store.load()
            #expect(loaded.settings == .defaults && loaded.problem?.code == .malformedData)
            #expect(failure { _ = try store.update { $0.paused = false } }?.message.contains("the settings were not changed") == true)
            #expect(AccountFixtures.read(store.path) == "[Handoff]\nPaused=maybe\n")
            // Readable by others: refused as the account files are.
            try store.save(.defaults)
            chmod(store.path, 0o644)
            #expect(store.load().problem?.code == .permission)
        }
    }

    /// The watch names a change of the file, not of its neighbours.
    @Test func watchSeesRenamesOverTheFile() throws {
        try AccountFixtures.withTemporaryDirectory { root in
            let store = SettingsStore(directory: root + "/handoff")
            try store.save(.defaults)
            let watch = SettingsWatch(store: store)
            #expect(watch.descriptor >= 0)
            #expect(!watch.changed())
            AccountFixtures.write(root + "/handoff/other", "x")
            #expect(!watch.changed())
            try store.update { $0.paused = true }
            #expect(watch.changed())
            #expect(!watch.changed())
        }
    }
}
