// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import HandoffTestSupport
import Testing
@testable import HandoffModel

@Suite struct ManifestTests {
    @Test func builtThroughTheAPI() throws {
        var m = try Manifest(bundleIdentifier: "com.example.shapes", teamIdentifier: "A1B2C3D4E5")
        try m.declare("com.example.shapes.create-shape")
        try m.declare("com.example.shapes.create-shape")
        #expect(m.activityTypes == ["com.example.shapes.create-shape"])
        #expect(m.declares("com.example.shapes.create-shape"))
        #expect(!m.declares("com.example.shapes.other"))
    }

    @Test func invalidIdentifiersAreRefused() {
        #expect(throws: HandoffError.self) { try Manifest(bundleIdentifier: "shapes", teamIdentifier: "A1B2C3D4E5") }
        #expect(throws: HandoffError.self) { try Manifest(bundleIdentifier: "com.example.x", teamIdentifier: "") }
        #expect(throws: HandoffError.self) { try Manifest(bundleIdentifier: "com.example.x", teamIdentifier: "TEAM-1") }
        #expect(throws: HandoffError.self) {
            try Manifest(bundleIdentifier: "com.example.x", teamIdentifier: "T1", activityTypes: ["bad\ttype"])
        }
    }

    @Test func loadsBinaryInfoPlistFromPlistlib() throws {
        let m = try Manifest(infoPlist: binaryInfoPlist)
        #expect(m.bundleIdentifier == "com.example.shapes")
        #expect(m.teamIdentifier == "A1B2C3D4E5")
        #expect(m.activityTypes == ["com.example.shapes.create-shape", "com.example.shapes.edit-shape"])
    }

    @Test func loadsXMLInfoPlist() throws {
        let m = try Manifest(infoPlist: xmlInfoPlist("""
            <key>CFBundleIdentifier</key><string>com.example.mapoff</string>
            <key>CFBundleVersion</key><string>1.0</string>
            <key>AppIdentifierPrefix</key><string>ABCDE12345.</string>
            <key>NSUserActivityTypes</key>
            <array><string>com.example.mapoff.view-region</string></array>
            <key>UISupportedInterfaceOrientations</key><array><string>portrait</string></array>
            """))
        #expect(m.bundleIdentifier == "com.example.mapoff")
        #expect(m.teamIdentifier == "ABCDE12345")
        #expect(m.activityTypes == ["com.example.mapoff.view-region"])
    }

    /// At most 512 types (docs/agent.md §3: what HELLO carries): an
    /// Info.plist with 512 loads, with 513 it is malformed; declaring a
    /// 513th through the API is an invalid value.
    @Test func atMost512ActivityTypes() throws {
        func plist(_ count: Int) -> [UInt8] {
            xmlInfoPlist("<key>CFBundleIdentifier</key><string>com.example.many</string>"
                + "<key>HandoffTeamIdentifier</key><string>TEAM1</string><key>NSUserActivityTypes</key><array>"
                + (0..<count).map { "<string>com.example.many.t\($0)</string>" }.joined() + "</array>")
        }
        let full = try Manifest(infoPlist: plist(Manifest.maxActivityTypes))
        #expect(full.activityTypes.count == 512)
        let over = #expect(throws: HandoffError.self) { try Manifest(infoPlist: plist(Manifest.maxActivityTypes + 1)) }
        #expect(over?.code == .malformedData && over?.message.contains("at most 512 activity types") == true)
        var api = full
        let more = #expect(throws: HandoffError.self) { try api.declare("com.example.many.t512") }
        #expect(more?.code == .invalidValue)
        #expect(api.activityTypes.count == 512)
    }

    /// At most 24,576 bytes of types in all: 96 of 255 bytes and one of 96
    /// load; one byte more is malformed.
    @Test func atMost24KiBOfActivityTypes() throws {
        func plist(lastLength: Int) -> [UInt8] {
            let long = (0..<96).map { i in "<string>" + String(repeating: "\(i % 10)", count: 250) + ".\(i + 1000)</string>" }
            return xmlInfoPlist("<key>CFBundleIdentifier</key><string>com.example.long</string>"
                + "<key>HandoffTeamIdentifier</key><string>TEAM1</string><key>NSUserActivityTypes</key><array>"
                + long.joined() + "<string>" + String(repeating: "z", count: lastLength) + "</string></array>")
        }
        let full = try Manifest(infoPlist: plist(lastLength: 96))
        #expect(full.activityTypes.reduce(0) { $0 + $1.utf8.count } == Manifest.maxActivityTypeBytes)
        let over = #expect(throws: HandoffError.self) { try Manifest(infoPlist: plist(lastLength: 97)) }
        #expect(over?.code == .malformedData)
    }

    @Test func loadsFromAFile() throws {
        let path = "/tmp/handoff-manifest-test-\(getpid()).plist"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try TestFiles.write(path, binaryInfoPlist)
        #expect(try Manifest(infoPlistAt: path).bundleIdentifier == "com.example.shapes")
    }

    /// Loaded as Apple's tools load them, each with a warning that starts
    /// with the file's path: a repeated key (the last value wins) and an
    /// NSUserActivityTypes that is a string, not an array (no types).
    @Test func repeatedKeyAndNonArrayTypesLoadFromAFileWithWarnings() throws {
        let path = "/tmp/handoff-manifest-lenient-\(getpid()).plist"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try TestFiles.write(path, xmlInfoPlist("""
            <key>CFBundleIdentifier</key><string>com.example.a</string>
            <key>HandoffTeamIdentifier</key><string>T0</string>
            <key>HandoffTeamIdentifier</key><string>T1</string>
            <key>NSUserActivityTypes</key><string>com.example.a.x</string>
            """))
        let m = try Manifest(infoPlistAt: path)
        #expect(m.teamIdentifier == "T1")
        #expect(m.activityTypes.isEmpty)
        #expect(m.warnings.count == 2)
        #expect(m.warnings.allSatisfy { $0.hasPrefix("\"\(path)\": ") }, "\(m.warnings)")
        #expect(m.warnings[0].contains("line 7") && m.warnings[0].contains("\"HandoffTeamIdentifier\" appears twice"))
        #expect(m.warnings[1].contains("NSUserActivityTypes is the string \"com.example.a.x\", not an array"))
    }

    @Test func missingFileIsIO() {
        do {
            _ = try Manifest(infoPlistAt: "/nonexistent/Info.plist")
            Issue.record("loaded")
        } catch {
            #expect(error.code == .io)
        }
    }

    @Test(arguments: [
        "<key>NSUserActivityTypes</key><array/>",  // no bundle, no team
        "<key>CFBundleIdentifier</key><string>com.example.a</string>",  // no team
        "<key>CFBundleIdentifier</key><integer>7</integer><key>HandoffTeamIdentifier</key><string>T1</string>",
        "<key>CFBundleIdentifier</key><string>com.example.a</string><key>HandoffTeamIdentifier</key><string>T1</string><key>NSUserActivityTypes</key><array><string>$(PRODUCT_BUNDLE_IDENTIFIER).x</string></array>",
    ])
    func incompleteOrWrongPlistsAreMalformed(body: String) {
        do {
            _ = try Manifest(infoPlist: xmlInfoPlist(body))
            Issue.record("loaded")
        } catch {
            #expect(error.code == .malformedData)
        }
    }

    @Test func notAPlistIsMalformed() {
        for junk in [[], Array("<plist><dict>".utf8), Array("bplist00garbage".utf8)] {
            #expect(throws: HandoffError.self) { try Manifest(infoPlist: junk) }
        }
    }
}
