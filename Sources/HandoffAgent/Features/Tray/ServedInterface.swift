// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus

/// One interface an exported object serves, with the two standard ones
/// every host asks first: org.freedesktop.DBus.Properties (Get, GetAll;
/// Set is refused: everything is read-only) and
/// org.freedesktop.DBus.Introspectable.
struct ServedInterface {
    let name: String
    /// The interface's <interface> element, for Introspect.
    let xml: String
    let properties: () -> [(String, BusValue)]

    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let introspectable = "org.freedesktop.DBus.Introspectable"

    /// The answer to a standard call, or nil when `call` is not one.
    func standard(_ call: BusMethodCall) -> BusMethodResult? {
        switch (call.interface, call.member) {
        case (Self.introspectable, "Introspect"):
            guard call.signature.isEmpty else { return .wrongArguments(call, expected: "") }
            let document = Self.introspection(xml)
            return .reply { (w) throws(DBusError) in try w.string(document) }
        case (Self.propertiesInterface, "Get"):
            guard call.signature == "ss", let iface = try? call.reader.string(), let key = try? call.reader.string()
            else { return .wrongArguments(call, expected: "ss") }
            guard iface == name || iface.isEmpty else {
                return .error(name: BusMethodResult.invalidArgs, message: "no interface \(iface) here")
            }
            guard let value = properties().first(where: { $0.0 == key })?.1 else {
                return .error(name: BusMethodResult.unknownProperty, message: "no property \(key) on \(name)")
            }
            return .reply { (w) throws(DBusError) in try w.variant(value) }
        case (Self.propertiesInterface, "GetAll"):
            guard call.signature == "s", let iface = try? call.reader.string() else {
                return .wrongArguments(call, expected: "s")
            }
            let entries = iface == name || iface.isEmpty ? properties() : []
            return .reply { (w) throws(DBusError) in try w.vardict(entries) }
        case (Self.propertiesInterface, "Set"):
            return .error(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "\(name)'s properties are read-only")
        case (Self.propertiesInterface, _), (Self.introspectable, _):
            return .error(name: BusMethodResult.unknownMethod, message: "no method \(call.member) in \(call.interface)")
        default:
            return nil
        }
    }

    static func introspection(_ xml: String) -> String {
        """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect"><arg name="xml" type="s" direction="out"/></method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
            <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>
          </interface>
        \(xml)
        </node>
        """
    }
}
