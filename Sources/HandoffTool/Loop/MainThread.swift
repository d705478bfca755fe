/// A value made on the main thread and used only there, handed through a
/// `@Sendable` job of a host queue (which runs on the main thread). The
/// compiler cannot see that; this type says it once.
struct MainThreadOnly<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
