// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HandoffModel

/// The per-thread record of the most recent failure (code and message),
/// read through `handoff_last_error_code` / `handoff_last_error_message`.
/// A pthread key owns one record per thread and frees it at thread exit.
enum LastError {
    private final class Record {
        var code: Int32 = 0
        var message: UnsafeMutablePointer<CChar>?
        deinit { free(message) }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { raw in
            Unmanaged<Record>.fromOpaque(UnsafeRawPointer(raw!)).release()
        }
        precondition(rc == 0, "libhandoff: pthread_key_create failed")
        return key
    }()

    private static var record: Record {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<Record>.fromOpaque(raw).takeUnretainedValue()
        }
        let record = Record()
        pthread_setspecific(key, Unmanaged.passRetained(record).toOpaque())
        return record
    }

    static func set(_ error: HandoffError) {
        let r = record
        free(r.message)
        r.code = error.code.rawValue
        r.message = CMemory.string(error.message)
    }

    static var code: Int32 { record.code }

    static var message: UnsafePointer<CChar> {
        if let m = record.message { return UnsafePointer(m) }
        return StaticText.empty
    }
}

/// Runs a thunk body: a thrown HandoffError becomes the thread's last error
/// and the function's failure result. No Swift error crosses into C.
enum Thunk {
    static func status(_ body: () throws(HandoffError) -> Void) -> Int32 {
        do {
            try body()
            return 0
        } catch {
            LastError.set(error)
            return error.code.rawValue
        }
    }

    static func value<T>(_ body: () throws(HandoffError) -> T?) -> T? {
        do {
            return try body()
        } catch {
            LastError.set(error)
            return nil
        }
    }
}
