// SPDX-License-Identifier: MIT OR Apache-2.0
/// What a device does in Handoff: a full device sends and receives; a
/// send-only one (Apple: watchOS) offers its activities but is never
/// offered any.
public enum DeviceRole: UInt8, Sendable, CaseIterable {
    case full = 1
    case sendOnly = 2

    /// The name used in files, options and the command line.
    public var name: String {
        switch self {
        case .full: "full"
        case .sendOnly: "send-only"
        }
    }

    public init?(name: String) {
        guard let role = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = role
    }
}
