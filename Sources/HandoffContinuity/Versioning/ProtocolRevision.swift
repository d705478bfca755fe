// SPDX-License-Identifier: MIT OR Apache-2.0

/// The protocol's revision: one number for everything that crosses a
/// process boundary (beacons, the channel, the local socket), raised when a
/// release adds something a peer may use (docs/PROTOCOL.md §10).
///
/// Revision 1 is libhandoff 0.1.0. Revision 2 (0.2.0) adds no message: it
/// makes every surface able to grow — beacon receivers ignore extensions
/// and optional flags, the channel and the local socket negotiate the
/// revision both ends speak — so that revision 3 can add messages without
/// cutting off revision 2. Revision 3 adds the presence beacon (kind 4),
/// which older receivers drop unread: nothing is agreed for it.
public enum ProtocolRevision {
    /// The highest revision this release speaks.
    public static let current = 4
    /// The lowest revision this release still speaks: a release speaks its
    /// predecessor's revision, so two adjacent releases always hand off.
    /// Still 1: revision 3 changes nothing a revision-1 peer meets (it
    /// drops the new beacon kind as it drops any unknown kind), so there
    /// is no reason to cut off 0.1.0.
    public static let oldest = 1
    /// What a peer that announces nothing speaks: a revision-1 peer
    /// (0.1.0) offers no ALPN on the channel and sends no `revision` in
    /// HELLO or WELCOME.
    public static let unannounced = 1

    public static let spoken: ClosedRange<Int> = oldest...current

    /// The revision two ends use: the highest both speak, or nil when their
    /// ranges do not meet (the peer is too old or too new).
    public static func agreed(ours: ClosedRange<Int> = spoken, theirs: ClosedRange<Int>) -> Int? {
        let top = min(ours.upperBound, theirs.upperBound)
        return top >= max(ours.lowerBound, theirs.lowerBound) ? top : nil
    }

    // MARK: The channel's ALPN tokens

    /// The channel announces revisions as TLS ALPN protocol ids, "handoff/N".
    static let alpnPrefix: [UInt8] = Array("handoff/".utf8)

    /// The ALPN id of revision `n`.
    static func alpnID(_ n: Int) -> [UInt8] { alpnPrefix + Array(String(n).utf8) }

    /// The revision an ALPN id names, or nil for anything else (leading
    /// zeros, signs, other protocols).
    static func revision(alpnID id: some Collection<UInt8>) -> Int? {
        guard id.count > alpnPrefix.count, id.count <= alpnPrefix.count + 4,
              id.prefix(alpnPrefix.count).elementsEqual(alpnPrefix) else { return nil }
        let digits = id.dropFirst(alpnPrefix.count)
        guard digits.first != UInt8(ascii: "0"), digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// A client's ALPN list in wire form (each id behind its u8 length):
    /// every revision it speaks, highest first.
    static func alpnOffer(_ revisions: ClosedRange<Int> = spoken) -> [UInt8] {
        revisions.reversed().flatMap { n -> [UInt8] in
            let id = alpnID(n)
            return [UInt8(id.count)] + id
        }
    }

    /// A server's choice from a client's ALPN list in wire form: the
    /// highest revision both speak, and where its id sits in `offer`; nil
    /// when the list is malformed or names none we speak (the handshake
    /// then goes on without ALPN, as with a revision-1 client).
    static func choose(fromOffer offer: UnsafeBufferPointer<UInt8>,
                       ours: ClosedRange<Int> = spoken) -> (revision: Int, range: Range<Int>)? {
        var best: (revision: Int, range: Range<Int>)?
        var i = 0
        while i < offer.count {
            let n = Int(offer[i])
            let start = i + 1
            guard n > 0, start + n <= offer.count else { return nil }
            if let r = revision(alpnID: offer[start..<(start + n)]), ours.contains(r), r > (best?.revision ?? 0) {
                best = (r, start..<(start + n))
            }
            i = start + n
        }
        return best
    }
}
