// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HandoffModel

/// Who this device is to the other devices of its account.
public struct DeviceIdentity: Sendable, Equatable, CustomStringConvertible {
    /// Bytes in a device id.
    public static let idSize = 16
    /// Most UTF-8 bytes in a device name.
    public static let maxNameLength = 64

    /// 32 lowercase hex digits (16 random bytes), stable per device.
    /// `init` validates it; assign only a valid id.
    public var id: String
    /// A human name, 1...64 UTF-8 bytes, no control characters. `init`
    /// validates it; assign only a valid name (`validateName`).
    public var name: String
    public var role: DeviceRole

    public init(id: String, name: String, role: DeviceRole) throws(HandoffError) {
        try Self.validateID(id)
        try Self.validateName(name)
        self.id = id
        self.name = name
        self.role = role
    }

    /// A new identity with a fresh random id.
    public static func generate(name: String, role: DeviceRole = .full) throws(HandoffError) -> DeviceIdentity {
        try DeviceIdentity(id: AccountEncoding.hex(Crypto.randomBytes(idSize)), name: name, role: role)
    }

    /// The 16 bytes of `id`; empty if `id` was assigned something that is no
    /// device id.
    public var idBytes: [UInt8] {
        guard id.utf8.count == Self.idSize * 2, let bytes = AccountEncoding.bytes(fromLowercaseHex: id) else { return [] }
        return bytes
    }

    public var description: String { "\(name) (\(role.name), \(id))" }

    /// Throws `.invalidValue` unless `id` is 32 lowercase hex digits.
    public static func validateID(_ id: String) throws(HandoffError) {
        guard id.utf8.count == idSize * 2, AccountEncoding.bytes(fromLowercaseHex: id) != nil else {
            throw HandoffError(
                .invalidValue,
                "a device id is \(idSize * 2) lowercase hex digits (0-9, a-f); \(AccountEncoding.quoted(id)) is not one: "
                    + "generate a new device identity")
        }
    }

    /// Throws `.invalidValue` unless `name` is 1...64 UTF-8 bytes without
    /// control characters.
    public static func validateName(_ name: String) throws(HandoffError) {
        let length = name.utf8.count
        guard length > 0 else {
            throw HandoffError(.invalidValue, "a device name cannot be empty: give the device a name people recognise")
        }
        guard length <= maxNameLength else {
            throw HandoffError(
                .invalidValue,
                "the device name \(AccountEncoding.quoted(name)) is \(length) UTF-8 bytes; the most is \(maxNameLength): choose a shorter name")
        }
        if let scalar = name.unicodeScalars.first(where: isControl) {
            throw HandoffError(
                .invalidValue,
                "the device name \(AccountEncoding.quoted(name)) contains the control character U+\(AccountEncoding.hex4(scalar.value)): "
                    + "use letters, digits, spaces and punctuation only")
        }
    }

    /// A valid device name made from `name` (such as a host name): control
    /// characters dropped, cut to 64 UTF-8 bytes on a character boundary,
    /// "Linux" if nothing is left.
    public static func sanitizedName(_ name: String) -> String {
        var result = ""
        var length = 0
        for character in name {
            if character.unicodeScalars.contains(where: isControl) { continue }
            let size = character.utf8.count
            guard length + size <= maxNameLength else { break }
            result.append(character)
            length += size
        }
        let trimmed = result.trimmingSpaces
        return trimmed.isEmpty ? "Linux" : trimmed
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " { scalars.removeFirst() }
        while let last = scalars.last, last == " " { scalars.removeLast() }
        return String(scalars)
    }
}

/// The machine's host name (gethostname), for default device names; "Linux"
/// if it cannot be read.
public func currentHostName() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    let ok = buffer.withUnsafeMutableBufferPointer { gethostname($0.baseAddress!, $0.count - 1) } == 0
    guard ok else { return "Linux" }
    let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return name.isEmpty ? "Linux" : name
}
