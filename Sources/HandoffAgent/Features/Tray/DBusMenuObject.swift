// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus

/// The tray's menu on the bus: com.canonical.dbusmenu (version 3, as
/// libdbusmenu and KDE's DBusMenuExporter serve it) at `path`, over a
/// `TrayMenu`. Any change to what the menu shows bumps the revision and
/// emits LayoutUpdated(revision, 0), so every host reads the layout again
/// (libdbusmenu's and Xfce's read it only then, or at AboutToShow, which
/// not every host calls); a new menu whose items are the same ids in the
/// same order also emits ItemsPropertiesUpdated first, for hosts that
/// update items in place.
///
/// Everything here answers at once from the current menu; input from any
/// process on the bus: wrong argument types, unknown ids and oversized
/// groups get D-Bus errors (or are skipped, as the spec says for groups).
final class DBusMenuObject {
    static let path = "/MenuBar"
    static let interface = "com.canonical.dbusmenu"
    /// Ids read from one GetGroupProperties / AboutToShowGroup, events from
    /// one EventGroup (the rest are read and dropped).
    static let maxGroup = 256

    private let bus: SessionBus
    private var object: SessionBus.ExportedObject?
    private(set) var menu: TrayMenu
    private(set) var revision: UInt32 = 1
    /// A "clicked" event on an item with an action.
    /// An item clicked, and the caller's unique name.
    var onClicked: ((TrayMenu.Item, String) -> Void)?
    /// The menu is about to open: a chance to refresh it (true: it changed).
    var onAboutToShow: (() -> Bool)?

    init(bus: SessionBus, menu: TrayMenu) throws(DBusError) {
        self.bus = bus
        self.menu = menu
        object = try bus.export(path: Self.path) { [unowned self] call in self.handle(call) }
    }

    func unexport() {
        if let object { bus.unexport(object) }
        object = nil
    }

    /// Serves `new` from now on and tells the hosts what changed.
    func update(_ new: TrayMenu) {
        guard new != menu else { return }
        let old = menu
        menu = new
        if old.ids == new.ids {
            let changed = new.items.filter { item in old.item(item.id).map { !$0.looksSame(as: item) } ?? true }
            // Only what an item does changed (another offer under its id):
            // hosts see nothing new, a click finds the new action.
            guard !changed.isEmpty else { return }
            try? bus.emit(path: Self.path, interface: Self.interface, member: "ItemsPropertiesUpdated") { (w) throws(DBusError) in
                try w.enter("a", "(ia{sv})")
                for item in changed {
                    try w.enter("r", "ia{sv}")
                    try w.int32(item.id)
                    try w.vardict(item.properties)
                    try w.leave()
                }
                try w.leave()
                // A property back at its default is left out, so named here.
                try w.enter("a", "(ias)")
                for item in changed {
                    let now = Set(item.properties.map(\.0))
                    let gone = (old.item(item.id)?.properties ?? []).map(\.0).filter { !now.contains($0) }
                    guard !gone.isEmpty else { continue }
                    try w.enter("r", "ias")
                    try w.int32(item.id)
                    try w.strings(gone)
                    try w.leave()
                }
                try w.leave()
            }
        }
        revision &+= 1
        if revision == 0 { revision = 1 }
        let revision = revision
        try? bus.emit(path: Self.path, interface: Self.interface, member: "LayoutUpdated") { (w) throws(DBusError) in
            try w.uint32(revision)
            try w.int32(TrayMenu.rootID)
        }
    }

    private var served: ServedInterface {
        ServedInterface(name: Self.interface, xml: Self.xml) {
            [("Version", .uint32(3)), ("TextDirection", .string("ltr")), ("Status", .string("normal")),
             ("IconThemePath", .strings([]))]
        }
    }

    private var rootProperties: [(String, BusValue)] { [("children-display", .string("submenu"))] }

    private func properties(of id: Int32) -> [(String, BusValue)]? {
        id == TrayMenu.rootID ? rootProperties : menu.item(id)?.properties
    }

    private func handle(_ call: BusMethodCall) -> BusMethodResult {
        if let answer = served.standard(call) { return answer }
        guard call.interface == Self.interface || call.interface.isEmpty else { return .notHandled }
        switch call.member {
        case "GetLayout": return getLayout(call)
        case "GetGroupProperties": return getGroupProperties(call)
        case "GetProperty": return getProperty(call)
        case "Event": return event(call)
        case "EventGroup": return eventGroup(call)
        case "AboutToShow":
            guard call.signature == "i", let id = try? call.reader.int32() else { return .wrongArguments(call, expected: "i") }
            guard properties(of: id) != nil else { return noItem(id) }
            let changed = onAboutToShow?() ?? false
            return .reply { (w) throws(DBusError) in try w.bool(changed) }
        case "AboutToShowGroup":
            guard call.signature == "ai", let ids = try? call.reader.int32s(limit: Self.maxGroup) else {
                return .wrongArguments(call, expected: "ai")
            }
            let changed = onAboutToShow?() ?? false
            let unknown = ids.filter { properties(of: $0) == nil }
            return .reply { (w) throws(DBusError) in
                try w.int32s(changed ? [TrayMenu.rootID] : [])
                try w.int32s(unknown)
            }
        default:
            return .error(name: BusMethodResult.unknownMethod, message: "no method \(call.member) in \(Self.interface)")
        }
    }

    private func noItem(_ id: Int32) -> BusMethodResult {
        .error(name: BusMethodResult.invalidArgs, message: "no menu item \(id)")
    }

    /// `names` empty: all of them.
    private static func filtered(_ properties: [(String, BusValue)], _ names: [String]) -> [(String, BusValue)] {
        names.isEmpty ? properties : properties.filter { names.contains($0.0) }
    }

    private func getLayout(_ call: BusMethodCall) -> BusMethodResult {
        guard call.signature == "iias", let parent = try? call.reader.int32(), let depth = try? call.reader.int32(),
              let names = try? call.reader.strings(limit: 32) else { return .wrongArguments(call, expected: "iias") }
        guard let parentProperties = properties(of: parent) else { return noItem(parent) }
        // The menu is flat: only the root has children.
        let children = parent == TrayMenu.rootID && depth != 0 ? menu.items : []
        let revision = revision
        return .reply { (w) throws(DBusError) in
            try w.uint32(revision)
            try w.enter("r", "ia{sv}av")
            try w.int32(parent)
            try w.vardict(Self.filtered(parentProperties, names))
            try w.enter("a", "v")
            for child in children {
                try w.enter("v", "(ia{sv}av)")
                try w.enter("r", "ia{sv}av")
                try w.int32(child.id)
                try w.vardict(Self.filtered(child.properties, names))
                try w.enter("a", "v")
                try w.leave()
                try w.leave()
                try w.leave()
            }
            try w.leave()
            try w.leave()
        }
    }

    private func getGroupProperties(_ call: BusMethodCall) -> BusMethodResult {
        guard call.signature == "aias", let ids = try? call.reader.int32s(limit: Self.maxGroup),
              let names = try? call.reader.strings(limit: 32) else { return .wrongArguments(call, expected: "aias") }
        // Unknown ids are left out (libdbusmenu does the same).
        let found = ids.compactMap { id in properties(of: id).map { (id, Self.filtered($0, names)) } }
        return .reply { (w) throws(DBusError) in
            try w.enter("a", "(ia{sv})")
            for (id, properties) in found {
                try w.enter("r", "ia{sv}")
                try w.int32(id)
                try w.vardict(properties)
                try w.leave()
            }
            try w.leave()
        }
    }

    private func getProperty(_ call: BusMethodCall) -> BusMethodResult {
        guard call.signature == "is", let id = try? call.reader.int32(), let name = try? call.reader.string() else {
            return .wrongArguments(call, expected: "is")
        }
        guard let properties = properties(of: id) else { return noItem(id) }
        guard let value = properties.first(where: { $0.0 == name })?.1 else {
            return .error(name: BusMethodResult.invalidArgs, message: "menu item \(id) has no property \(name)")
        }
        return .reply { (w) throws(DBusError) in try w.variant(value) }
    }

    private func event(_ call: BusMethodCall) -> BusMethodResult {
        guard call.signature == "isvu", let id = try? call.reader.int32(), let kind = try? call.reader.string() else {
            return .wrongArguments(call, expected: "isvu")
        }
        guard properties(of: id) != nil else { return noItem(id) }
        deliver(id, kind, from: call.sender)
        return .reply { _ throws(DBusError) in }
    }

    private func eventGroup(_ call: BusMethodCall) -> BusMethodResult {
        guard call.signature == "a(isvu)" else { return .wrongArguments(call, expected: "a(isvu)") }
        var events: [(Int32, String)] = []
        let reader = call.reader
        do throws(DBusError) {
            _ = try reader.enter("a", "(isvu)")
            while try reader.enter("r", "isvu") {
                let id = try reader.int32(), kind = try reader.string()
                try reader.skip("vu")
                try reader.leave()
                if events.count < Self.maxGroup { events.append((id, kind)) }
            }
            try reader.leave()
        } catch {
            return .error(name: BusMethodResult.invalidArgs, message: "EventGroup: \(error.message)")
        }
        let unknown = events.filter { properties(of: $0.0) == nil }.map(\.0)
        if unknown.count == events.count, !events.isEmpty {
            return .error(name: BusMethodResult.invalidArgs, message: "no menu item among the events' ids")
        }
        for (id, kind) in events where properties(of: id) != nil { deliver(id, kind, from: call.sender) }
        return .reply { (w) throws(DBusError) in try w.int32s(unknown) }
    }

    /// Only "clicked" does something; "opened", "closed", "hovered" are heard.
    private func deliver(_ id: Int32, _ kind: String, from sender: String) {
        guard kind == "clicked", let item = menu.item(id), item.enabled, item.action != .none else { return }
        onClicked?(item, sender)
    }

    static let xml = """
      <interface name="com.canonical.dbusmenu">
        <property name="Version" type="u" access="read"/>
        <property name="TextDirection" type="s" access="read"/>
        <property name="Status" type="s" access="read"/>
        <property name="IconThemePath" type="as" access="read"/>
        <method name="GetLayout">
          <arg type="i" name="parentId" direction="in"/><arg type="i" name="recursionDepth" direction="in"/>
          <arg type="as" name="propertyNames" direction="in"/>
          <arg type="u" name="revision" direction="out"/><arg type="(ia{sv}av)" name="layout" direction="out"/>
        </method>
        <method name="GetGroupProperties">
          <arg type="ai" name="ids" direction="in"/><arg type="as" name="propertyNames" direction="in"/>
          <arg type="a(ia{sv})" name="properties" direction="out"/>
        </method>
        <method name="GetProperty">
          <arg type="i" name="id" direction="in"/><arg type="s" name="name" direction="in"/>
          <arg type="v" name="value" direction="out"/>
        </method>
        <method name="Event">
          <arg type="i" name="id" direction="in"/><arg type="s" name="eventId" direction="in"/>
          <arg type="v" name="data" direction="in"/><arg type="u" name="timestamp" direction="in"/>
        </method>
        <method name="EventGroup">
          <arg type="a(isvu)" name="events" direction="in"/><arg type="ai" name="idErrors" direction="out"/>
        </method>
        <method name="AboutToShow">
          <arg type="i" name="id" direction="in"/><arg type="b" name="needUpdate" direction="out"/>
        </method>
        <method name="AboutToShowGroup">
          <arg type="ai" name="ids" direction="in"/>
          <arg type="ai" name="updatesNeeded" direction="out"/><arg type="ai" name="idErrors" direction="out"/>
        </method>
        <signal name="ItemsPropertiesUpdated">
          <arg type="a(ia{sv})" name="updatedProps"/><arg type="a(ias)" name="removedProps"/>
        </signal>
        <signal name="LayoutUpdated"><arg type="u" name="revision"/><arg type="i" name="parent"/></signal>
        <signal name="ItemActivationRequested"><arg type="i" name="id"/><arg type="u" name="timestamp"/></signal>
      </interface>
    """
}
