// SPDX-License-Identifier: MIT OR Apache-2.0
/// An error from libhandoff: a stable numeric code and a message that says
/// what went wrong and what to do about it.
///
/// Codes 4608...4863 are Apple's user-activity error domain and keep Apple's
/// numbers (NSUserActivityHandoffFailedError and its siblings); the small
/// codes below 4608 are the library's own. The same numbers are the
/// `handoff_status` values of the C ABI.
public struct HandoffError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.name) (\(code.rawValue)): \(message)" }

    /// True for Apple's user-activity domain (4608...4863).
    public var isUserActivityError: Bool { Code.userActivityRange.contains(code.rawValue) }

    public struct Code: RawRepresentable, Hashable, Sendable {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        // The library's own codes.
        /// A required argument was missing (NULL) or out of range.
        public static let invalidArgument = Code(rawValue: 1)
        /// A value was refused: not an allowed userInfo type, bad identifier,
        /// invalid UTF-8, a non-http(s) web page URL, too deep, ...
        public static let invalidValue = Code(rawValue: 2)
        /// A value was read as a kind it is not (e.g. a string as an integer).
        public static let typeMismatch = Code(rawValue: 3)
        /// The thing asked for is not there (an absent key or property).
        public static let notFound = Code(rawValue: 4)
        /// Bytes could not be decoded: truncated, corrupt or hostile.
        public static let malformedData = Code(rawValue: 5)
        /// A file could not be read or written.
        public static let io = Code(rawValue: 6)
        /// The activity lacks a key named in requiredUserInfoKeys.
        public static let missingRequiredKey = Code(rawValue: 7)
        /// The call does not fit the object's state (e.g. an invalidated activity).
        public static let invalidState = Code(rawValue: 8)
        /// The call was made on a thread it may not be made on.
        public static let wrongThread = Code(rawValue: 9)
        /// A wait ran out of time.
        public static let timedOut = Code(rawValue: 10)
        /// A file's permissions are unsafe (a key readable by others) or
        /// forbid the access.
        public static let permission = Code(rawValue: 11)

        // Apple's user-activity domain.
        public static let handoffFailed = Code(rawValue: 4608)
        public static let connectionUnavailable = Code(rawValue: 4609)
        public static let remoteApplicationTimedOut = Code(rawValue: 4610)
        public static let userInfoTooLarge = Code(rawValue: 4611)

        public static let userActivityRange: ClosedRange<Int32> = 4608...4863

        /// The C ABI's name for the code, e.g. `HANDOFF_E_USER_INFO_TOO_LARGE`.
        public var name: String {
            switch self {
            case .invalidArgument: "HANDOFF_E_INVALID_ARGUMENT"
            case .invalidValue: "HANDOFF_E_INVALID_VALUE"
            case .typeMismatch: "HANDOFF_E_TYPE_MISMATCH"
            case .notFound: "HANDOFF_E_NOT_FOUND"
            case .malformedData: "HANDOFF_E_MALFORMED_DATA"
            case .io: "HANDOFF_E_IO"
            case .missingRequiredKey: "HANDOFF_E_MISSING_REQUIRED_KEY"
            case .invalidState: "HANDOFF_E_INVALID_STATE"
            case .wrongThread: "HANDOFF_E_WRONG_THREAD"
            case .timedOut: "HANDOFF_E_TIMED_OUT"
            case .permission: "HANDOFF_E_PERMISSION"
            case .handoffFailed: "HANDOFF_E_HANDOFF_FAILED"
            case .connectionUnavailable: "HANDOFF_E_CONNECTION_UNAVAILABLE"
            case .remoteApplicationTimedOut: "HANDOFF_E_REMOTE_APPLICATION_TIMED_OUT"
            case .userInfoTooLarge: "HANDOFF_E_USER_INFO_TOO_LARGE"
            default: "HANDOFF_E_UNKNOWN"
            }
        }

        /// A one-line, static description of the code (the C ABI's
        /// `handoff_status_string`), static so C can borrow it forever.
        public var summary: StaticString {
            switch self {
            case .invalidArgument: "invalid argument"
            case .invalidValue: "value refused"
            case .typeMismatch: "value is of another kind"
            case .notFound: "not found"
            case .malformedData: "malformed data"
            case .io: "input/output error"
            case .missingRequiredKey: "required userInfo key missing"
            case .invalidState: "invalid state for this call"
            case .wrongThread: "called on the wrong thread"
            case .timedOut: "timed out"
            case .permission: "unsafe or forbidden file permissions"
            case .handoffFailed: "handoff failed"
            case .connectionUnavailable: "connection unavailable"
            case .remoteApplicationTimedOut: "remote application timed out"
            case .userInfoTooLarge: "userInfo too large"
            default: "unknown status"
            }
        }
    }
}
