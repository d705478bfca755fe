// SPDX-License-Identifier: MIT OR Apache-2.0
import CHandoffHeader
import HandoffModel

// handoff_value_*: see include/handoff.h, "Values".

private func box(_ p: OpaquePointer?, _ name: String = "value") throws(HandoffError) -> ValueBox {
    Handle.object(try CArgument.handle(p, name))
}

private func newValue(_ value: UserInfoValue, checked: Bool = false) -> OpaquePointer {
    Handle.retained(ValueBox(value, checked: checked))
}

private func mismatch(_ value: UserInfoValue, _ expected: UserInfoValue.Kind) -> HandoffError {
    HandoffError(.typeMismatch, "the value is \(value.kind.name), not \(expected.name); check handoff_value_get_kind first")
}

// MARK: Constructors

@c @implementation public func handoff_value_new_null() -> OpaquePointer? { newValue(.null) }
@c @implementation public func handoff_value_new_boolean(_ v: Int32) -> OpaquePointer? { newValue(.boolean(v != 0)) }
@c @implementation public func handoff_value_new_integer(_ v: Int64) -> OpaquePointer? { newValue(.integer(v)) }
@c @implementation public func handoff_value_new_real(_ v: Double) -> OpaquePointer? { newValue(.real(v)) }
@c @implementation public func handoff_value_new_array() -> OpaquePointer? { newValue(.array([])) }
@c @implementation public func handoff_value_new_dictionary() -> OpaquePointer? { newValue(.dictionary([:])) }
@c @implementation public func handoff_value_new_set() -> OpaquePointer? { newValue(.set([])) }

@c @implementation public func handoff_value_new_string(_ utf8: UnsafePointer<CChar>?) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in newValue(.string(try CArgument.string(utf8, "utf8"))) }
}

@c @implementation public func handoff_value_new_data(_ bytes: UnsafeRawPointer?, _ length: Int) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in newValue(.data(try CArgument.bytes(bytes, length, "bytes"))) }
}

@c @implementation public func handoff_value_new_date(_ unixSeconds: Double) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        guard unixSeconds.isFinite else {
            throw HandoffError(.invalidValue, "a date must be a finite number of seconds since 1970-01-01T00:00:00Z")
        }
        return newValue(.date(Timestamp(timeIntervalSince1970: unixSeconds)))
    }
}

@c @implementation public func handoff_value_new_url(_ url: UnsafePointer<CChar>?) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        let s = try CArgument.string(url, "url")
        guard let u = URLReference(string: s), u.scheme != nil else {
            throw HandoffError(.invalidValue, "\"\(s)\" is not an absolute URL; give a scheme, e.g. https://example.com/page")
        }
        return newValue(.url(u))
    }
}

@c @implementation public func handoff_value_copy(_ value: OpaquePointer?) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in newValue(try box(value).value) }
}

@c @implementation public func handoff_value_free(_ value: OpaquePointer?) {
    Handle.release(value, as: ValueBox.self)
}

// MARK: Reading

@c @implementation public func handoff_value_get_kind(_ value: OpaquePointer?) -> handoff_value_kind {
    let kind = value.map { Handle.object($0, as: ValueBox.self).value.kind } ?? .null
    return handoff_value_kind(rawValue: UInt32(kind.rawValue))
}

@c @implementation public func handoff_value_equal(_ a: OpaquePointer?, _ b: OpaquePointer?) -> Int32 {
    guard let a, let b else { return 0 }
    return Handle.object(a, as: ValueBox.self).value == Handle.object(b, as: ValueBox.self).value ? 1 : 0
}

/// Reads a scalar into an out-parameter, or fails with a type mismatch.
private func read<T>(_ value: OpaquePointer?, _ out: UnsafeMutablePointer<T>?, _ kind: UserInfoValue.Kind,
                     _ extract: (UserInfoValue) -> T?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let v = try box(value).value
        let out = try CArgument.out(out, "out")
        guard let x = extract(v) else { throw mismatch(v, kind) }
        out.pointee = x
    }
}

@c @implementation public func handoff_value_get_boolean(_ value: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    read(value, out, .boolean) { if case .boolean(let b) = $0 { b ? 1 : 0 } else { nil } }
}

@c @implementation public func handoff_value_get_integer(_ value: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?) -> Int32 {
    read(value, out, .integer) { if case .integer(let i) = $0 { i } else { nil } }
}

@c @implementation public func handoff_value_get_real(_ value: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    read(value, out, .real) { if case .real(let d) = $0 { d } else { nil } }
}

@c @implementation public func handoff_value_get_date(_ value: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    read(value, out, .date) { if case .date(let d) = $0 { d.timeIntervalSince1970 } else { nil } }
}

@c @implementation public func handoff_value_get_string(_ value: OpaquePointer?, _ length: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
    Thunk.value { () throws(HandoffError) in
        let b = try box(value)
        let v = b.value
        guard case .string = v else { throw mismatch(v, .string) }
        return b.withViews { views in
            length?.pointee = views.textLength
            return views.text.map { UnsafePointer($0) }
        }
    }
}

@c @implementation public func handoff_value_get_url(_ value: OpaquePointer?) -> UnsafePointer<CChar>? {
    Thunk.value { () throws(HandoffError) in
        let b = try box(value)
        let v = b.value
        guard case .url = v else { throw mismatch(v, .url) }
        return b.withViews { $0.text.map { UnsafePointer($0) } }
    }
}

@c @implementation public func handoff_value_get_data(_ value: OpaquePointer?, _ length: UnsafeMutablePointer<Int>?) -> UnsafeRawPointer? {
    length?.pointee = 0
    return Thunk.value { () throws(HandoffError) in
        let b = try box(value)
        let v = b.value
        guard case .data = v else { throw mismatch(v, .data) }
        return b.withViews { views in
            length?.pointee = views.byteCount
            return views.bytes.map { UnsafeRawPointer($0) }
        }
    }
}

@c @implementation public func handoff_value_count(_ value: OpaquePointer?) -> Int {
    guard let value else { return 0 }
    switch Handle.object(value, as: ValueBox.self).value {
    case .array(let a): return a.count
    case .dictionary(let d): return d.count
    case .set(let s): return s.count
    default: return 0
    }
}

// MARK: Containers

@c @implementation public func handoff_value_array_append(_ array: OpaquePointer?, _ item: OpaquePointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let container = try box(array, "array")
        let v = try box(item, "item").value  // read first: the item may be the array itself
        try container.mutate { (c) throws(HandoffError) in
            guard case .array(var items) = c else { throw mismatch(c, .array) }
            items.append(v)
            c = .array(items)
        }
    }
}

@c @implementation public func handoff_value_set_add(_ set: OpaquePointer?, _ member: OpaquePointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let container = try box(set, "set")
        let v = try box(member, "member").value
        try container.mutate { (c) throws(HandoffError) in
            guard case .set(var members) = c else { throw mismatch(c, .set) }
            members.insert(v)
            c = .set(members)
        }
    }
}

@c @implementation public func handoff_value_dictionary_set(_ dictionary: OpaquePointer?, _ key: UnsafePointer<CChar>?,
                                            _ item: OpaquePointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let container = try box(dictionary, "dictionary")
        let k = try CArgument.string(key, "key")
        if k == UserInfoRules.classKey {
            throw HandoffError(.invalidValue, "the key \"\(k)\" is reserved for the encoding of null, set and URL values; use another key")
        }
        let v = try box(item, "item").value
        try container.mutate { (c) throws(HandoffError) in
            guard case .dictionary(var d) = c else { throw mismatch(c, .dictionary) }
            d[k] = v
            c = .dictionary(d)
        }
    }
}

@c @implementation public func handoff_value_dictionary_remove(_ dictionary: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let container = try box(dictionary, "dictionary")
        let k = try CArgument.string(key, "key")
        try container.mutate { (c) throws(HandoffError) in
            guard case .dictionary(var d) = c else { throw mismatch(c, .dictionary) }
            guard d.removeValue(forKey: k) != nil else {
                throw HandoffError(.notFound, "the dictionary has no key \"\(k)\"")
            }
            c = .dictionary(d)
        }
    }
}

/// A borrowed child of a container of `kind`, by index.
private func child(_ container: OpaquePointer?, _ index: Int, _ kind: UserInfoValue.Kind) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        let b = try box(container, kind.name)
        let v = b.value
        guard v.kind == kind else { throw mismatch(v, kind) }
        return try b.withViews { (views) throws(HandoffError) in
            guard index >= 0, index < views.children.count else {
                throw HandoffError(.invalidArgument, "index \(index) is out of range: the \(kind.name) has \(views.children.count) entries")
            }
            return Handle.unretained(views.children[index])
        }
    }
}

@c @implementation public func handoff_value_array_get(_ array: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    child(array, index, .array)
}

@c @implementation public func handoff_value_dictionary_value_at(_ dictionary: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    child(dictionary, index, .dictionary)
}

@c @implementation public func handoff_value_set_member_at(_ set: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    child(set, index, .set)
}

@c @implementation public func handoff_value_dictionary_key_at(_ dictionary: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    Thunk.value { () throws(HandoffError) in
        let b = try box(dictionary, "dictionary")
        let v = b.value
        guard case .dictionary = v else { throw mismatch(v, .dictionary) }
        return try b.withViews { (views) throws(HandoffError) in
            guard index >= 0, index < views.keyPointers.count else {
                throw HandoffError(.invalidArgument, "index \(index) is out of range: the dictionary has \(views.keyPointers.count) entries")
            }
            return UnsafePointer(views.keyPointers[index])
        }
    }
}

@c @implementation public func handoff_value_dictionary_get(_ dictionary: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        let b = try box(dictionary, "dictionary")
        let k = try CArgument.string(key, "key")
        let v = b.value
        guard case .dictionary = v else { throw mismatch(v, .dictionary) }
        return try b.withViews { (views) throws(HandoffError) in
            guard let i = views.index(ofKey: k) else {
                throw HandoffError(.notFound, "the dictionary has no key \"\(k)\"")
            }
            return Handle.unretained(views.children[i])
        }
    }
}

// MARK: Encoding

@c @implementation public func handoff_value_encode(_ value: OpaquePointer?, _ bytes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                                    _ length: UnsafeMutablePointer<Int>?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let v = try box(value).value
        let bytes = try CArgument.out(bytes, "bytes")
        let length = try CArgument.out(length, "length")
        try UserInfoRules.check(v)
        CMemory.give(BinaryPropertyList.encode(UserInfoCoding.propertyList(v)), to: bytes, length: length)
    }
}

@c @implementation public func handoff_value_decode(_ bytes: UnsafeRawPointer?, _ length: Int) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        guard bytes != nil else { throw HandoffError(.invalidArgument, "bytes is NULL") }
        let input = try CArgument.bytes(bytes, length, "bytes")
        let v = try UserInfoCoding.decodeValue(input)
        do throws(HandoffError) { try UserInfoRules.check(v) } catch {
            throw HandoffError(.malformedData, "decoded value breaks a rule: \(error.message)")
        }
        return newValue(v, checked: true)
    }
}

// MARK: JSON (for bindings whose language parses JSON natively)

@c @implementation public func handoff_value_encode_json(_ value: OpaquePointer?, _ text: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                         _ length: UnsafeMutablePointer<Int>?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let v = try box(value).value
        let text = try CArgument.out(text, "text")
        let length = try CArgument.out(length, "length")
        var json = try UserInfoJSON.encode(v)
        let count = json.count
        json.append(0)
        text.pointee = UnsafeMutableRawPointer(CMemory.bytes(json)).assumingMemoryBound(to: CChar.self)
        length.pointee = count
    }
}

@c @implementation public func handoff_value_decode_json(_ text: UnsafePointer<CChar>?, _ length: Int) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        guard let text else { throw HandoffError(.invalidArgument, "text is NULL") }
        guard length >= 0 else { throw HandoffError(.invalidArgument, "length is negative") }
        return newValue(try UserInfoJSON.decode(UnsafeRawBufferPointer(start: text, count: length)), checked: true)
    }
}
