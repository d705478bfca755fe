// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HandoffBase
import HandoffModel

/// The object behind a `handoff_value *`: a userInfo value plus the C views
/// handed out from it (text, bytes, borrowed children). Views stay valid
/// until the value changes; only containers change.
final class ValueBox: @unchecked Sendable {
    // @unchecked: every mutable field sits behind `state`.
    private let state: Locked<State>

    private struct State {
        var value: UserInfoValue
        var views: Views?
        /// The value is known to keep `UserInfoRules` (a decoder checked it,
        /// or an activity held it) until it changes: setting it as a
        /// userInfo need not walk it again.
        var checked: Bool
    }

    init(_ value: UserInfoValue, checked: Bool = false) {
        state = Locked(State(value: value, views: nil, checked: checked))
    }

    var value: UserInfoValue { state.withLock { $0.value } }

    /// The value, and whether it is known to keep the rules.
    var checkedValue: (value: UserInfoValue, checked: Bool) { state.withLock { ($0.value, $0.checked) } }

    /// Changes the value, dropping every view (and so every borrowed child)
    /// and what was known of it.
    func mutate<R>(_ body: (inout UserInfoValue) throws(HandoffError) -> R) throws(HandoffError) -> R {
        try state.withLock { (s) throws(HandoffError) -> R in
            s.views = nil
            s.checked = false
            return try body(&s.value)
        }
    }

    /// Runs `body` with the views of the current value, building them once.
    func withViews<R, E: Error>(_ body: (Views) throws(E) -> R) throws(E) -> R {
        try state.withLock { (s) throws(E) -> R in
            let views = s.views ?? Views(s.value)
            s.views = views
            return try body(views)
        }
    }

    /// C-facing views of one value, freed with it.
    // @unchecked: only used under the owning box's lock.
    final class Views: @unchecked Sendable {
        /// Text of a string or URL value.
        private(set) var text: UnsafeMutablePointer<CChar>?
        private(set) var textLength = 0
        /// Bytes of a data value (never NULL for data).
        private(set) var bytes: UnsafeMutablePointer<UInt8>?
        private(set) var byteCount = 0
        /// Array items; dictionary values in key order; set members.
        private(set) var children: [ValueBox] = []
        /// Dictionary keys, sorted by UTF-8 bytes, matching `children`.
        private(set) var keys: [String] = []
        private(set) var keyPointers: [UnsafeMutablePointer<CChar>] = []

        init(_ value: UserInfoValue) {
            switch value {
            case .string(let s):
                setText(s)
            case .url(let u):
                setText(u.absoluteString)
            case .data(let d):
                let b = [UInt8](d)
                bytes = CMemory.bytes(b)
                byteCount = b.count
            case .array(let items):
                children = items.map { ValueBox($0) }
            case .set(let members):
                children = members.map { ValueBox($0) }
            case .dictionary(let dict):
                keys = dict.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                keyPointers = keys.map(CMemory.string)
                keyIndex = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
                children = keys.map { ValueBox(dict[$0]!) }
            default:
                break
            }
        }

        private func setText(_ s: String) {
            text = CMemory.string(s)
            textLength = s.utf8.count
        }

        /// Position of each key in `keys`; Swift string equality, so a
        /// canonically equivalent spelling finds the same entry.
        private var keyIndex: [String: Int] = [:]

        func index(ofKey key: String) -> Int? { keyIndex[key] }

        deinit {
            free(text)
            free(bytes)
            keyPointers.forEach { free($0) }
        }
    }
}
