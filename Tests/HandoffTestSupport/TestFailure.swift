// SPDX-License-Identifier: MIT OR Apache-2.0
/// What a fixture throws when the system under it fails (a process that
/// does not start, a file it cannot write): the reason, for the test's log.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
