// SPDX-License-Identifier: MIT OR Apache-2.0
/// How the two devices of a pairing authenticate their key agreement
/// (docs/PROTOCOL.md §9).
public enum PairingMethod: Sendable, Equatable {
    /// X25519 with commit-before-reveal; both show six digits and their
    /// persons compare them.
    case comparison
    /// SPAKE2 keyed by a one-time code the person carried from one device
    /// to the other; nobody is asked anything.
    case code(OneTimeCode)
}
