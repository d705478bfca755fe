// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus

/// `Pair()` (docs/agent.md §15): one `PairingObject` at a time, for the
/// front end that asked; the sponsor run (`AgentPairing`) tells it the
/// comparison code and how the run ended.
extension AgentSessionAPI {
    static let pairingPathPrefix = "/org/libhandoff/Agent/Pairing/"

    func pair(_ call: BusMethodCall) -> BusMethodResult {
        guard call.signature.isEmpty else { return .wrongArguments(call, expected: "") }
        guard server.pairing != nil else {
            return .error(name: Errors.failed, message: "this agent sponsors no pairings (it runs with --no-pairing or without notifications)")
        }
        let caller = call.reader.sender
        if let current = pairingObject {
            guard current.caller == caller else {
                return .error(name: Errors.failed, message: "another front end is pairing a device now")
            }
            return .reply { [path = current.path] (w) throws(DBusError) in try w.objectPath(path) }
        }
        guard let bus else { return .error(name: Errors.failed, message: "the bus connection is closed") }
        pairings += 1
        let path = Self.pairingPathPrefix + "\(pairings)"
        let loop = server.loop
        do {
            let object = try PairingObject(bus: bus, path: path, caller: caller) { job in loop.post(job) }
            object.gone = { [unowned self] in self.pairingObject = nil }
            pairingObject = object
        } catch {
            return .error(name: Errors.failed, message: "cannot start a pairing: \(error.message)")
        }
        server.log("pair-requested", "a front end on the session bus waits for a new device to pair", ["path": .string(path)])
        return .reply { (w) throws(DBusError) in try w.objectPath(path) }
    }

    /// The sponsor run reached its comparison code (its text, "123 456").
    func pairingAsks(_ code: String, answer: @escaping (Bool) -> Void) {
        pairingObject?.asks(code, answer: answer)
    }

    /// The sponsor run ended: paired with `peer` (nil: not; `why`).
    func pairingEnded(peer: String?, why: String) {
        pairingObject?.end(paired: peer != nil, peer.map { "paired with \($0)" } ?? why)
    }
}
