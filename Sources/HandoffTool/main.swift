// SPDX-License-Identifier: MIT OR Apache-2.0
// The `handoff` command: accounts, this device, nearby activities, publish,
// continue, doctor. See docs/cli.md and `handoff --help`.
#if canImport(Glibc)
import Glibc
#endif

exit(Tool.main(Array(CommandLine.arguments.dropFirst())))
