// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus

/// One front end's `Pair()` (docs/agent.md §15): `org.libhandoff.Pairing1`
/// at its own path. The agent sponsors every pairing a new device starts
/// (§9); while this object lives, the next one's comparison code is also
/// its `Digits`, and `Confirm`/`Cancel` answer it as the notification's
/// "Pair"/"Not now" would (the first answer counts). It emits
/// `Finished(b paired, s message)` once, then is gone; it is gone too when
/// its caller leaves the bus (`NameOwnerChanged`). Loop thread.
final class PairingObject: @unchecked Sendable {
    // @unchecked: touched on the loop thread only (`later` posts there).
    static let interface = "org.libhandoff.Pairing1"

    let path: String
    /// The unique name of the process that called `Pair()`.
    let caller: String
    private let bus: SessionBus
    /// Runs a job later on the loop: letting go of the object and the
    /// match happens outside sd-bus's dispatch of them.
    private let later: (@escaping @Sendable () -> Void) -> Void
    private var finished = false
    private var object: SessionBus.ExportedObject?
    private var watch: SessionBus.Subscription?
    private(set) var digits = ""
    /// The comparison's answer, while one is asked.
    private var answer: ((Bool) -> Void)?
    /// Called once, when it is gone (finished, cancelled, its caller left).
    var gone: (() -> Void)?

    init(bus: SessionBus, path: String, caller: String, later: @escaping (@escaping @Sendable () -> Void) -> Void) throws(DBusError) {
        self.bus = bus
        self.later = later
        self.path = path
        self.caller = caller
        let object = try bus.export(path: path) { [unowned self] call in self.handle(call) }
        do throws(DBusError) {
            watch = try bus.subscribe(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                      interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: caller) { [weak self] m in
                guard let self, (try? m.string()) == self.caller, (try? m.string()) != nil, (try? m.string()) == "" else { return }
                self.end(paired: false, "the front end that asked to pair left the bus", tell: false)
            }
            // It may have left before the match was in place: ask once.
            try bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                         member: "GetNameOwner", timeout: 10, build: { [caller] (w) throws(DBusError) in try w.string(caller) }) {
                [weak self] result in
                if case .failure = result {
                    self?.end(paired: false, "the front end that asked to pair left the bus", tell: false)
                }
            }
        } catch {
            // Nothing of a pairing that never started stays on the bus (the
            // object's handler would outlive it).
            if let watch { bus.unsubscribe(watch) }
            watch = nil
            bus.unexport(object)
            throw error
        }
        self.object = object
    }

    /// The sponsor run reached its comparison: `code` as the new device
    /// shows it; `answer` takes the person's.
    func asks(_ code: String, answer: @escaping (Bool) -> Void) {
        guard !finished else { return answer(false) }
        digits = code
        self.answer = answer
        try? bus.emit(path: path, interface: ServedInterface.propertiesInterface, member: "PropertiesChanged") {
            [digits] (w) throws(DBusError) in
            try w.string(Self.interface)
            try w.vardict([("Digits", .string(digits))])
            try w.strings([])
        }
    }

    /// `Finished` (unless the caller is gone: `tell` false), and gone.
    func end(paired: Bool, _ message: String, tell: Bool = true) {
        guard !finished else { return }
        finished = true
        if tell {
            try? bus.emit(path: path, interface: Self.interface, member: "Finished") { (w) throws(DBusError) in
                try w.bool(paired)
                try w.string(message)
            }
        }
        answer?(false)
        answer = nil
        later { [self] in self.release() }
        gone?()
        gone = nil
    }

    /// Outside sd-bus's dispatch of the object and the match.
    private func release() {
        if let watch { bus.unsubscribe(watch) }
        if let object { bus.unexport(object) }
        watch = nil
        object = nil
    }

    private func handle(_ call: BusMethodCall) -> BusMethodResult {
        let served = ServedInterface(name: Self.interface, xml: Self.xml) { [unowned self] in [("Digits", .string(self.digits))] }
        if let answer = served.standard(call) { return answer }
        guard call.interface == Self.interface || call.interface.isEmpty else { return .notHandled }
        guard !finished else { return .error(name: AgentSessionAPI.Errors.failed, message: "this pairing has finished") }
        switch call.member {
        case "Confirm":
            guard call.signature.isEmpty else { return .wrongArguments(call, expected: "") }
            guard let answer else {
                return .error(name: AgentSessionAPI.Errors.failed, message: "no device has answered yet: nothing to confirm")
            }
            self.answer = nil
            answer(true)
            return .reply { _ throws(DBusError) in }
        case "Cancel":
            guard call.signature.isEmpty else { return .wrongArguments(call, expected: "") }
            end(paired: false, "cancelled")
            return .reply { _ throws(DBusError) in }
        default:
            return .error(name: BusMethodResult.unknownMethod, message: "no method \(call.member) in \(Self.interface)")
        }
    }

    static let xml = """
      <interface name="org.libhandoff.Pairing1">
        <property name="Digits" type="s" access="read"/>
        <method name="Confirm"/>
        <method name="Cancel"/>
        <signal name="Finished"><arg name="paired" type="b"/><arg name="message" type="s"/></signal>
      </interface>
    """
}
