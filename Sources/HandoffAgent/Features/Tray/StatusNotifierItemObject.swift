// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus

/// The tray icon on the bus: org.kde.StatusNotifierItem (the
/// freedesktop.org StatusNotifierItem spec, as KDE and Ayatana serve it) at
/// /StatusNotifierItem. Its state is `Look`; a new look emits NewIcon,
/// NewStatus, NewToolTip for what changed. Activate and the others go to
/// `onActivate`, `onSecondaryActivate`; ContextMenu and Scroll are
/// accepted and do nothing (ItemIsMenu: the host shows the menu itself).
/// `ProvideXdgActivationToken` (KDE Plasma 5.26+, before Activate or a
/// menu event) goes to `onActivationToken`.
final class StatusNotifierItemObject {
    static let path = "/StatusNotifierItem"
    static let interface = "org.kde.StatusNotifierItem"

    /// What the icon shows.
    struct Look: Equatable {
        /// "Active", "Passive" or "NeedsAttention".
        var status: String
        var iconName: String
        var toolTipTitle: String
        var toolTipText: String
    }

    private let bus: SessionBus
    private var object: SessionBus.ExportedObject?
    private(set) var look: Look
    let iconThemePath: String
    let menuPath: String
    /// Each with the caller's unique name (whose token it may spend).
    var onActivate: ((String) -> Void)?
    var onSecondaryActivate: ((String) -> Void)?
    /// The host's token for the event it sends next, and who sent it.
    var onActivationToken: ((String, String) -> Void)?

    init(bus: SessionBus, look: Look, iconThemePath: String, menuPath: String) throws(DBusError) {
        self.bus = bus
        self.look = look
        self.iconThemePath = iconThemePath
        self.menuPath = menuPath
        object = try bus.export(path: Self.path) { [unowned self] call in self.handle(call) }
    }

    func unexport() {
        if let object { bus.unexport(object) }
        object = nil
    }

    func update(_ new: Look) {
        let old = look
        look = new
        if new.iconName != old.iconName { signal("NewIcon") }
        if new.status != old.status {
            try? bus.emit(path: Self.path, interface: Self.interface, member: "NewStatus") { (w) throws(DBusError) in
                try w.string(new.status)
            }
        }
        if new.toolTipTitle != old.toolTipTitle || new.toolTipText != old.toolTipText { signal("NewToolTip") }
    }

    private func signal(_ member: String) {
        try? bus.emit(path: Self.path, interface: Self.interface, member: member)
    }

    var properties: [(String, BusValue)] {
        let look = look
        let noPixmaps = BusValue.custom(signature: "a(iiay)") { (w) throws(DBusError) in
            try w.enter("a", "(iiay)")
            try w.leave()
        }
        let toolTip = BusValue.custom(signature: "(sa(iiay)ss)") { (w) throws(DBusError) in
            try w.enter("r", "sa(iiay)ss")
            try w.string(look.iconName)
            try w.enter("a", "(iiay)")
            try w.leave()
            try w.string(look.toolTipTitle)
            try w.string(look.toolTipText)
            try w.leave()
        }
        return [
            ("Category", .string("ApplicationStatus")),
            ("Id", .string("handoff")),
            ("Title", .string("Handoff")),
            ("Status", .string(look.status)),
            ("WindowId", .int32(0)),
            ("IconName", .string(look.iconName)),
            ("IconPixmap", noPixmaps),
            ("IconThemePath", .string(iconThemePath)),
            ("OverlayIconName", .string("")),
            ("OverlayIconPixmap", noPixmaps),
            ("AttentionIconName", .string(look.iconName)),
            ("AttentionIconPixmap", noPixmaps),
            ("AttentionMovieName", .string("")),
            ("ToolTip", toolTip),
            ("ItemIsMenu", .bool(true)),
            ("Menu", .objectPath(menuPath)),
        ]
    }

    private func handle(_ call: BusMethodCall) -> BusMethodResult {
        let served = ServedInterface(name: Self.interface, xml: Self.xml) { [unowned self] in self.properties }
        if let answer = served.standard(call) { return answer }
        guard call.interface == Self.interface || call.interface.isEmpty else { return .notHandled }
        switch call.member {
        case "Activate", "SecondaryActivate", "ContextMenu":
            guard call.signature == "ii" else { return .wrongArguments(call, expected: "ii") }
            if call.member == "Activate" { onActivate?(call.sender) }
            if call.member == "SecondaryActivate" { onSecondaryActivate?(call.sender) }
            return .reply { _ throws(DBusError) in }
        case "ProvideXdgActivationToken":
            guard call.signature == "s", let token = try? call.reader.string() else {
                return .wrongArguments(call, expected: "s")
            }
            onActivationToken?(token, call.sender)
            return .reply { _ throws(DBusError) in }
        case "Scroll":
            guard call.signature == "is" else { return .wrongArguments(call, expected: "is") }
            return .reply { _ throws(DBusError) in }
        default:
            return .error(name: BusMethodResult.unknownMethod, message: "no method \(call.member) in \(Self.interface)")
        }
    }

    static let xml = """
      <interface name="org.kde.StatusNotifierItem">
        <property name="Category" type="s" access="read"/>
        <property name="Id" type="s" access="read"/>
        <property name="Title" type="s" access="read"/>
        <property name="Status" type="s" access="read"/>
        <property name="WindowId" type="i" access="read"/>
        <property name="IconName" type="s" access="read"/>
        <property name="IconPixmap" type="a(iiay)" access="read"/>
        <property name="IconThemePath" type="s" access="read"/>
        <property name="OverlayIconName" type="s" access="read"/>
        <property name="OverlayIconPixmap" type="a(iiay)" access="read"/>
        <property name="AttentionIconName" type="s" access="read"/>
        <property name="AttentionIconPixmap" type="a(iiay)" access="read"/>
        <property name="AttentionMovieName" type="s" access="read"/>
        <property name="ToolTip" type="(sa(iiay)ss)" access="read"/>
        <property name="ItemIsMenu" type="b" access="read"/>
        <property name="Menu" type="o" access="read"/>
        <method name="ContextMenu"><arg name="x" type="i" direction="in"/><arg name="y" type="i" direction="in"/></method>
        <method name="Activate"><arg name="x" type="i" direction="in"/><arg name="y" type="i" direction="in"/></method>
        <method name="SecondaryActivate"><arg name="x" type="i" direction="in"/><arg name="y" type="i" direction="in"/></method>
        <method name="Scroll"><arg name="delta" type="i" direction="in"/><arg name="orientation" type="s" direction="in"/></method>
        <method name="ProvideXdgActivationToken"><arg name="token" type="s" direction="in"/></method>
        <signal name="NewTitle"/>
        <signal name="NewIcon"/>
        <signal name="NewAttentionIcon"/>
        <signal name="NewOverlayIcon"/>
        <signal name="NewToolTip"/>
        <signal name="NewStatus"><arg name="status" type="s"/></signal>
      </interface>
    """
}
