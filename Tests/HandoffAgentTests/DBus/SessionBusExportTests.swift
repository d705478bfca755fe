// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffAgent
@testable import HandoffDBus
import HandoffModel
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Serving objects on the bus (SessionBus+Export.swift, docs/agent.md §6
/// "The tray"), on a private dbus-daemon: a second connection calls as any
/// process on the session bus would.
@Suite struct SessionBusExportTests {
    /// Pumps both connections until `done` (bounded).
    func pumpBoth(_ a: SessionBus, _ b: SessionBus, until done: () -> Bool) -> Bool {
        let end = monotonicNow() + 60
        while !done() {
            guard monotonicNow() < end else { return false }
            var entries = [pollfd(fd: a.fd, events: a.events, revents: 0), pollfd(fd: b.fd, events: b.events, revents: 0)]
            _ = poll(&entries, 2, 50)
            a.process()
            b.process()
        }
        return true
    }

    func call(_ client: SessionBus, _ server: SessionBus, to name: String, path: String = "/Test",
              interface: String = "org.handoff.Test", member: String,
              build: @escaping (MessageWriter) throws(DBusError) -> Void = { _ throws(DBusError) in })
        throws -> Result<String, DBusError> {
        var answer: Result<String, DBusError>?
        try client.call(destination: name, path: path, interface: interface, member: member, timeout: 10,
                        build: build) { result in
            answer = result.map { (try? $0.string()) ?? "" }
        }
        #expect(pumpBoth(client, server) { answer != nil })
        return try #require(answer)
    }

    @Test func aServedObjectAnswersRepliesErrorsAndWhatItDoesNotKnow() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        let server = try SessionBus(address: privateBus.address)
        let client = try SessionBus(address: privateBus.address)
        defer { server.close(); client.close() }
        var owned: Result<Void, DBusError>?
        try server.requestName("org.handoff.ExportTest") { owned = $0 }
        var calls = 0
        _ = try server.export(path: "/Test") { call in
            calls += 1
            switch call.member {
            case "Echo":
                guard call.signature == "s", let text = try? call.reader.string() else {
                    return .wrongArguments(call, expected: "s")
                }
                return .reply { (w) throws(DBusError) in try w.string("echo: \(text)") }
            case "Fail":
                return .error(name: BusMethodResult.invalidArgs, message: "told to fail")
            default:
                return .notHandled
            }
        }
        #expect(pumpBoth(server, client) { owned != nil })
        #expect((try? owned?.get()) != nil)

        let name = "org.handoff.ExportTest"
        #expect(try call(client, server, to: name, member: "Echo") { (w) throws(DBusError) in try w.string("hi") }
                == .success("echo: hi"))
        guard case .failure(let wrong) = try call(client, server, to: name, member: "Echo", build: { (w) throws(DBusError) in
            try w.uint32(7)
        }) else { Issue.record("a wrong argument was accepted"); return }
        #expect(wrong.name == BusMethodResult.invalidArgs && wrong.message.contains("Echo takes (s), not (u)"), "\(wrong)")
        guard case .failure(let failed) = try call(client, server, to: name, member: "Fail") else {
            Issue.record("Fail answered"); return
        }
        #expect(failed.name == BusMethodResult.invalidArgs && failed.message.contains("told to fail"))
        guard case .failure(let unknown) = try call(client, server, to: name, member: "Nope") else {
            Issue.record("Nope answered"); return
        }
        #expect(unknown.name == "org.freedesktop.DBus.Error.UnknownMethod", "\(unknown)")
        guard case .failure(let elsewhere) = try call(client, server, to: name, path: "/Other", member: "Echo") else {
            Issue.record("another path answered"); return
        }
        #expect(elsewhere.name == "org.freedesktop.DBus.Error.UnknownObject", "\(elsewhere)")
        #expect(calls == 4)
    }

    @Test func objectsAreBoundedAndUnexportedObjectsAreGone() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        let server = try SessionBus(address: privateBus.address)
        defer { server.close() }
        var objects: [SessionBus.ExportedObject] = []
        for i in 0..<SessionBus.maxExportedObjects {
            objects.append(try server.export(path: "/O\(i)") { _ in .notHandled })
        }
        #expect(throws: DBusError.self) { _ = try server.export(path: "/More") { _ in .notHandled } }
        server.unexport(objects[0])
        _ = try server.export(path: "/More") { _ in .notHandled }
    }

    @Test func theMenuSaysLayoutOrPropertiesChangedAndRevisionsGrow() throws {
        let privateBus = try PrivateBus()
        defer { privateBus.stop() }
        let server = try SessionBus(address: privateBus.address)
        let client = try SessionBus(address: privateBus.address)
        defer { server.close(); client.close() }
        let offerA = TrayMenuTests.offer("A")
        func menu(_ titles: [String], paused: Bool = false) -> TrayMenu {
            TrayMenu(offers: titles.map { _ in offerA }, offerID: { _ in TrayMenu.firstOfferID },
                     devices: [], paused: paused)
        }
        let object = try DBusMenuObject(bus: server, menu: menu([]))
        var layouts: [UInt32] = [], properties = 0
        try client.subscribe(sender: nil, path: DBusMenuObject.path, interface: DBusMenuObject.interface,
                             member: "LayoutUpdated") { m in
            if let revision = try? m.uint32() { layouts.append(revision) }
        }
        try client.subscribe(sender: nil, path: DBusMenuObject.path, interface: DBusMenuObject.interface,
                             member: "ItemsPropertiesUpdated") { _ in properties += 1 }
        // The matches are installed once a call round trip has passed.
        var synced = false
        try client.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                        member: "GetId", timeout: 10) { _ in synced = true }
        #expect(pumpBoth(client, server) { synced })

        #expect(object.revision == 1)
        object.update(menu(["A"]))  // a new item: the layout
        #expect(pumpBoth(client, server) { layouts == [2] })
        // Same ids, other properties: the properties, then a new revision
        // (hosts that only re-read the layout on LayoutUpdated see it too).
        object.update(menu(["A"], paused: true))
        #expect(pumpBoth(client, server) { properties == 1 && layouts == [2, 3] })
        object.update(menu(["A"], paused: true))  // nothing changed: nothing said
        object.update(menu([]))
        #expect(pumpBoth(client, server) { layouts == [2, 3, 4] })
        #expect(properties == 1 && object.revision == 4, "\(properties) \(object.revision) \(layouts)")
        object.unexport()
    }
}
