// SPDX-License-Identifier: MIT OR Apache-2.0
/// Opaque C handles are retained Swift objects: `*_new` hands out +1,
/// `*_free` releases it, borrowed children are unretained pointers into
/// objects their parent keeps alive.
enum Handle {
    static func retained<T: AnyObject>(_ object: T) -> OpaquePointer {
        OpaquePointer(Unmanaged.passRetained(object).toOpaque())
    }

    static func unretained<T: AnyObject>(_ object: T) -> OpaquePointer {
        OpaquePointer(Unmanaged.passUnretained(object).toOpaque())
    }

    static func object<T: AnyObject>(_ pointer: OpaquePointer, as _: T.Type = T.self) -> T {
        Unmanaged<T>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    static func release<T: AnyObject>(_ pointer: OpaquePointer?, as _: T.Type) {
        guard let pointer else { return }
        Unmanaged<T>.fromOpaque(UnsafeRawPointer(pointer)).release()
    }
}
