// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffDBus
import HandoffModel

/// `org.libhandoff.Agent1`'s methods (docs/agent.md §15). Every argument
/// is checked before anything is done: wrong types, an id of the wrong
/// form, an unknown or mistyped settings key answer `InvalidArgs`; an id
/// of the right form that names nothing answers `NoSuchOffer`,
/// `NoSuchDevice` or `NoSuchEntry`.
extension AgentSessionAPI {
    enum Errors {
        static let noSuchOffer = "org.libhandoff.Agent1.Error.NoSuchOffer"
        static let noSuchDevice = "org.libhandoff.Agent1.Error.NoSuchDevice"
        static let noSuchEntry = "org.libhandoff.Agent1.Error.NoSuchEntry"
        static let notPaired = "org.libhandoff.Agent1.Error.NotPaired"
        static let failed = "org.libhandoff.Agent1.Error.Failed"
    }

    func reply(to call: BusMethodCall) -> BusMethodResult {
        let served = ServedInterface(name: Self.interface, xml: Self.xml) { [unowned self] in self.snapshot().properties }
        if let answer = served.standard(call) { return answer }
        guard call.interface == Self.interface || call.interface.isEmpty else { return .notHandled }
        switch call.member {
        case "Continue": return continueOffer(call)
        case "ContinueRecent": return continueRecent(call)
        case "Pause", "Resume":
            guard call.signature.isEmpty else { return .wrongArguments(call, expected: "") }
            return answer(controls.setPaused(call.member == "Pause"))
        case "SetDevice": return setDevice(call)
        case "SetApp": return setApp(call)
        case "Pair": return pair(call)
        default:
            return .error(name: BusMethodResult.unknownMethod, message: "no method \(call.member) in \(Self.interface)")
        }
    }

    private func continueOffer(_ call: BusMethodCall) -> BusMethodResult {
        guard call.signature == "sa{sv}", let text = try? call.reader.string(), let data = try? call.reader.vardict()
        else { return .wrongArguments(call, expected: "s, a{sv}") }
        guard let id = ActivityID(uuidString: text) else {
            return .error(name: BusMethodResult.invalidArgs, message: "\(text.debugDescription) is not an activity id")
        }
        guard case .success(let token) = Self.activationToken(data) else { return Self.badPlatformData }
        guard server.offers.offer(id) != nil else {
            return .error(name: Errors.noSuchOffer, message: "nothing offers \(id.uuidString) now")
        }
        return continued(id.uuidString, controls.continueOffer(id, activationToken: token))
    }

    private func continueRecent(_ call: BusMethodCall) -> BusMethodResult {
        guard call.signature == "sa{sv}", let text = try? call.reader.string(), let data = try? call.reader.vardict()
        else { return .wrongArguments(call, expected: "s, a{sv}") }
        guard let entry = Int64(text), entry > 0, String(entry) == text else {
            return .error(name: BusMethodResult.invalidArgs, message: "\(text.debugDescription) is not a history entry's id")
        }
        guard case .success(let token) = Self.activationToken(data) else { return Self.badPlatformData }
        guard server.history?.entries([entry]).isEmpty == false else {
            return .error(name: Errors.noSuchEntry, message: "no history entry \(entry)")
        }
        return continued(text, controls.continueRecent(entry, activationToken: token))
    }

    /// The reply, and `Continued` after it, for what the router did.
    private func continued(_ id: String, _ result: Result<ContinueChoice, HandoffError>) -> BusMethodResult {
        switch result {
        case .success(let choice):
            continued(id, ok: true, Self.describe(choice))
            return .reply { _ throws(DBusError) in }
        case .failure(let error):
            continued(id, ok: false, error.message)
            return .error(name: Errors.failed, message: error.message)
        }
    }

    static func describe(_ choice: ContinueChoice) -> String {
        switch choice {
        case .running(let bundle): "continued in \(bundle), which runs"
        case .launched(let bundle): "launched \(bundle)"
        case .webPage(let url): "opened \(url.absoluteString)"
        }
    }

    private func setDevice(_ call: BusMethodCall) -> BusMethodResult {
        guard call.signature == "sa{sv}", let id = try? call.reader.string(), let data = try? call.reader.vardict()
        else { return .wrongArguments(call, expected: "s, a{sv}") }
        guard HandoffSettings.isDeviceID(id) else {
            return .error(name: BusMethodResult.invalidArgs, message: "\(id.debugDescription) is not a device id (32 lowercase hex digits)")
        }
        guard case .success(let flags) = Self.flags(data, keys: ["offer", "accept", "history"]) else {
            return .error(name: BusMethodResult.invalidArgs, message: "SetDevice takes the keys offer, accept, history, each a boolean")
        }
        guard let device = server.engine.roster.first(where: { $0.id == id }) else {
            return .error(name: Errors.noSuchDevice, message: "no device \(id) in this account")
        }
        return answer(controls.setDevice(id, name: device.name, offer: flags["offer"], accept: flags["accept"],
                                         history: flags["history"]))
    }

    private func setApp(_ call: BusMethodCall) -> BusMethodResult {
        guard call.signature == "sa{sv}", let app = try? call.reader.string(), let data = try? call.reader.vardict()
        else { return .wrongArguments(call, expected: "s, a{sv}") }
        // A desktop entry ID names the app as its bundle does.
        let bundle = app.hasSuffix(".desktop") ? String(app.dropLast(".desktop".count)) : app
        guard HandoffSettings.isBundleIdentifier(bundle) else {
            return .error(name: BusMethodResult.invalidArgs, message: "\(app.debugDescription) is not an app id")
        }
        guard case .success(let flags) = Self.flags(data, keys: ["muted", "history"]) else {
            return .error(name: BusMethodResult.invalidArgs, message: "SetApp takes the keys muted, history, each a boolean")
        }
        return answer(controls.setApp(bundle, muted: flags["muted"], history: flags["history"]))
    }

    private func answer(_ result: Result<Void, HandoffError>) -> BusMethodResult {
        switch result {
        case .success: .reply { _ throws(DBusError) in }
        case .failure(let error): .error(name: Errors.failed, message: error.message)
        }
    }

    // MARK: Arguments

    struct BadArgument: Error {}

    static var badPlatformData: BusMethodResult {
        .error(name: BusMethodResult.invalidArgs, message: "platform_data's activation-token and desktop-startup-id are strings")
    }

    /// `platform_data`'s token, as `org.freedesktop.Application` takes it:
    /// `activation-token` first, else `desktop-startup-id`; one that may
    /// not be passed on (`ActivationToken.checked`) is none. Other keys are
    /// ignored (the dictionary is open).
    static func activationToken(_ data: BusAnyValue) -> Result<String?, BadArgument> {
        var token: String?
        for key in ["desktop-startup-id", "activation-token"] {
            guard let value = data[key] else { continue }
            guard case .string(let text) = value else { return .failure(BadArgument()) }
            if let checked = ActivationToken.checked(text) { token = checked }
        }
        return .success(token)
    }

    /// The booleans of a settings dictionary, every key one of `keys`.
    static func flags(_ data: BusAnyValue, keys: Set<String>) -> Result<[String: Bool], BadArgument> {
        guard case .dictionary(let entries) = data else { return .failure(BadArgument()) }
        var out: [String: Bool] = [:]
        for (key, value) in entries {
            guard let name = key.string, keys.contains(name), let flag = value.bool else { return .failure(BadArgument()) }
            out[name] = flag
        }
        return .success(out)
    }
}
