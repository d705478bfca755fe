// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase
import HandoffModel

/// Continuations the person chose for an app the agent had to launch
/// (docs/agent.md §5): each is kept until an app with that bundle
/// identifier says HELLO, and at most `lifetime` (30 s), then dropped.
///
/// One per bundle identifier: choosing again for the same app replaces the
/// earlier choice (the person's latest wins). At most `capacity` (32) in
/// all: adding to a full table drops the oldest. Expired ones are never
/// handed out, whether or not `expire` has run. Times are CLOCK_MONOTONIC
/// nanoseconds (`now()`), passed in so the agent's loop and tests decide.
///
/// Not thread-safe: owned by the agent's loop.
public struct PendingLaunches<Choice>: Sendable where Choice: Sendable {
    public static var defaultLifetime: UInt64 { 30_000_000_000 }
    public static var defaultCapacity: Int { 32 }

    public let lifetime: UInt64
    public let capacity: Int

    private struct Pending: Sendable {
        var bundle: String
        var choice: Choice
        var deadline: UInt64
    }
    /// Oldest first.
    private var pending: [Pending] = []

    public init(lifetime: UInt64 = defaultLifetime, capacity: Int = defaultCapacity) {
        self.lifetime = lifetime
        self.capacity = max(1, capacity)
    }

    public var count: Int { pending.count }
    public var isEmpty: Bool { pending.isEmpty }

    /// When the next one expires, for the agent's timer; nil when empty.
    public var nextDeadline: UInt64? { pending.map(\.deadline).min() }

    /// Keeps `choice` for the app `bundle` until `now + lifetime`.
    /// - Returns: what it displaced: an earlier choice for the same app, or
    ///   the oldest one when the table was full.
    @discardableResult
    public mutating func add(_ choice: Choice, for bundle: String, now: UInt64 = Monotonic.now()) -> [Choice] {
        var displaced: [Choice] = []
        if let index = pending.firstIndex(where: { Self.same($0.bundle, bundle) }) {
            displaced.append(pending.remove(at: index).choice)
        }
        while pending.count >= capacity {
            displaced.append(pending.removeFirst().choice)
        }
        let (deadline, overflow) = now.addingReportingOverflow(lifetime)
        pending.append(Pending(bundle: bundle, choice: choice, deadline: overflow ? .max : deadline))
        return displaced
    }

    /// The choice kept for `bundle`, removed from the table; nil when there
    /// is none or it has expired (an expired one is dropped too).
    public mutating func take(for bundle: String, now: UInt64 = Monotonic.now()) -> Choice? {
        guard let index = pending.firstIndex(where: { Self.same($0.bundle, bundle) }) else { return nil }
        let item = pending.remove(at: index)
        return now < item.deadline ? item.choice : nil
    }

    /// Gives the choice kept for `bundle` a new `lifetime` from `now` (the
    /// app is being started again, by its `Exec` after D-Bus activation
    /// failed). False when there is none (the app has connected and taken
    /// it, or it expired).
    @discardableResult
    public mutating func renew(for bundle: String, now: UInt64 = Monotonic.now()) -> Bool {
        guard let index = pending.firstIndex(where: { Self.same($0.bundle, bundle) }), now < pending[index].deadline
        else { return false }
        let (deadline, overflow) = now.addingReportingOverflow(lifetime)
        pending[index].deadline = overflow ? .max : deadline
        return true
    }

    /// The choice kept (and not expired) for `bundle`, left in the table.
    public func choice(for bundle: String, now: UInt64 = Monotonic.now()) -> Choice? {
        pending.first { Self.same($0.bundle, bundle) && now < $0.deadline }?.choice
    }

    /// Drops every choice whose time is up.
    /// - Returns: the dropped ones, oldest first (the agent logs them).
    @discardableResult
    public mutating func expire(now: UInt64 = Monotonic.now()) -> [Choice] {
        let expired = pending.filter { now >= $0.deadline }.map(\.choice)
        pending.removeAll { now >= $0.deadline }
        return expired
    }

    /// Bundle identifiers match byte for byte.
    private static func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }
}

