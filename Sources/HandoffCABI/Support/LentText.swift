// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A string lent to C by a getter whose value lives in Swift (the
/// activation token): one copy per thread, kept until the next lend on
/// that thread, freed at thread exit. A getter documented "valid until the
/// callback returns" is safely within that.
enum LentText {
    private final class Slot {
        var text: UnsafeMutablePointer<CChar>?
        deinit { free(text) }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { raw in
            Unmanaged<Slot>.fromOpaque(UnsafeRawPointer(raw!)).release()
        }
        precondition(rc == 0, "libhandoff: pthread_key_create failed")
        return key
    }()

    private static var slot: Slot {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<Slot>.fromOpaque(raw).takeUnretainedValue()
        }
        let slot = Slot()
        pthread_setspecific(key, Unmanaged.passRetained(slot).toOpaque())
        return slot
    }

    /// A C copy of `text`, valid on this thread until the next `lend`.
    static func lend(_ text: String) -> UnsafePointer<CChar>? {
        let s = slot
        free(s.text)
        s.text = CMemory.string(text)
        return s.text.map { UnsafePointer($0) }
    }
}
