import HandoffModel

/// A value delivered once by one thread and awaited, with a deadline, by
/// another: how a channel thread waits for the app's main thread.
final class OneShot<Value: Sendable>: Sendable {
    private let slot = Awaitable<Value?>(nil)

    /// Delivers the value; later deliveries are ignored.
    func fulfil(_ v: Value) {
        slot.update { if $0 == nil { $0 = v } }
    }

    /// The value, or nil when `seconds` pass first (`.infinity`: no limit).
    func wait(seconds: Double) -> Value? {
        slot.wait(until: { $0 != nil }, seconds: seconds) { value, _ in value }
    }
}
