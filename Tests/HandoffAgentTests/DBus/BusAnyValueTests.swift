// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffAgent
@testable import HandoffDBus
import HandoffModel
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Reading values of types fixed by the peer (BusAnyValue.swift), as the
/// MPRIS bridge reads a player's properties: a served object on a private
/// dbus-daemon answers an `a{sv}`, a second connection reads it, bounded.
@Suite struct BusAnyValueTests {
    @Test func anAsvOfEveryKindIsReadAndBounded() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        let server = try SessionBus(address: privateBus.address)
        let client = try SessionBus(address: privateBus.address)
        defer { server.close(); client.close() }
        var owned: Result<Void, DBusError>?
        try server.requestName("org.handoff.AnyTest") { owned = $0 }
        let long = String(repeating: "é", count: 3000)  // 6000 bytes
        let many = (0..<300).map { "s\($0)" }
        _ = try server.export(path: "/Test") { _ in
            .reply { (w) throws(DBusError) in
                try w.enter("a", "{sv}")
                func entry(_ key: String, _ signature: String, _ body: () throws(DBusError) -> Void) throws(DBusError) {
                    try w.enter("e", "sv"); try w.string(key); try w.enter("v", signature); try body(); try w.leave(); try w.leave()
                }
                try entry("Status", "s") { () throws(DBusError) in try w.string("Playing") }
                try entry("Can", "b") { () throws(DBusError) in try w.bool(true) }
                try entry("Position", "x") { () throws(DBusError) in try w.int64(-42_000_000_000) }
                try entry("Rate", "d") { () throws(DBusError) in try w.double(1.5) }
                try entry("Track", "o") { () throws(DBusError) in try w.objectPath("/t/1") }
                try entry("Long", "s") { () throws(DBusError) in try w.string(long) }
                try entry("Many", "as") { () throws(DBusError) in try w.strings(many) }
                try entry("Metadata", "a{sv}") { () throws(DBusError) in
                    try w.vardict([("xesam:url", .string("file:///a")), ("xesam:artist", .strings(["Ann", "Bo"]))])
                }
                try w.leave()
            }
        }
        let end = monotonicNow() + 60
        func pump(until done: () -> Bool) {
            while !done() && monotonicNow() < end {
                var entries = [pollfd(fd: server.fd, events: server.events, revents: 0),
                               pollfd(fd: client.fd, events: client.events, revents: 0)]
                _ = poll(&entries, 2, 50)
                server.process()
                client.process()
            }
        }
        pump { owned != nil }
        var read: BusAnyValue?
        try client.call(destination: "org.handoff.AnyTest", path: "/Test", interface: "org.freedesktop.DBus.Properties",
                        member: "GetAll", timeout: 10, build: { (w) throws(DBusError) in try w.string("x") }) { result in
            read = (try? result.get()).flatMap { try? $0.vardict() }
        }
        pump { read != nil }
        let value = try #require(read)
        #expect(value["Status"] == .string("Playing"))
        #expect(value["Can"]?.bool == true)
        #expect(value["Position"] == .integer(-42_000_000_000))
        #expect(value["Rate"]?.number == 1.5)
        #expect(value["Track"] == .objectPath("/t/1"))
        let cut = try #require(value["Long"]?.string)
        #expect(cut.utf8.count <= BusReadBounds.stringBytes && cut.utf8.count >= BusReadBounds.stringBytes - 1 && cut.allSatisfy { $0 == "é" })
        #expect(value["Many"]?.strings == Array(many.prefix(BusReadBounds.elements)))
        #expect(value["Metadata"]?["xesam:url"] == .string("file:///a"))
        #expect(value["Metadata"]?["xesam:artist"]?.strings == ["Ann", "Bo"])
        #expect(value["Absent"] == nil)
    }
}
