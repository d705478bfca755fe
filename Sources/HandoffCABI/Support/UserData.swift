// SPDX-License-Identifier: MIT OR Apache-2.0
/// A host's `void *user_data` and its `destroy`, called once when the
/// object that holds them goes away.
public final class UserData: @unchecked Sendable {
    // @unchecked: the pointer is the host's; the library only passes it back.
    public typealias Destroy = @convention(c) (UnsafeMutableRawPointer?) -> Void

    let pointer: UnsafeMutableRawPointer?
    private var destroy: Destroy?

    init(_ pointer: UnsafeMutableRawPointer?, destroy: Destroy?) {
        self.pointer = pointer
        self.destroy = destroy
    }

    /// Forgets `destroy`: for a constructor that fails after taking the
    /// user data, since a failed call never calls it.
    func disown() { destroy = nil }

    deinit { destroy?(pointer) }
}
