// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// A value delivered once by one thread and awaited, with a deadline, by
/// another: how a channel thread waits for the app's main thread.
final class OneShot<Value: Sendable>: Sendable {
    private enum Slot { case empty, filled(Value), closed }
    private let slot = Awaitable<Slot>(.empty)

    /// Delivers the value. Returns whether it was taken: false for a later
    /// delivery, or once `take` gave up waiting.
    @discardableResult
    func fulfil(_ v: Value) -> Bool {
        slot.update { s in
            guard case .empty = s else { return false }
            s = .filled(v)
            return true
        }
    }

    /// The value, or nil when `seconds` pass first (`.infinity`: no limit).
    func wait(seconds: Double) -> Value? {
        slot.wait(until: Self.isSettled, seconds: seconds) { s, _ in Self.value(s) }
    }

    /// Like `wait`, but when `seconds` pass first no later delivery is
    /// taken: its sender learns that nobody waited for it any more.
    func take(seconds: Double) -> Value? {
        slot.wait(until: Self.isSettled, seconds: seconds) { s, _ in
            if case .empty = s { s = .closed }
            return Self.value(s)
        }
    }

    private static func isSettled(_ s: Slot) -> Bool {
        if case .empty = s { return false }
        return true
    }

    private static func value(_ s: Slot) -> Value? {
        if case .filled(let v) = s { return v }
        return nil
    }
}
