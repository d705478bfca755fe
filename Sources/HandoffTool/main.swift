// SPDX-License-Identifier: MIT OR Apache-2.0
// The `handoff` command: accounts, this device, nearby activities, publish,
// continue, doctor. See docs/cli.md and `handoff --help`.
import HandoffAgent
#if canImport(Glibc)
import Glibc
#endif

Localization.setUp()  // before any thread: setlocale is not thread-safe

exit(Tool.main(Array(CommandLine.arguments.dropFirst())))
