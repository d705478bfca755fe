// SPDX-License-Identifier: MIT OR Apache-2.0
//! Peer processes for the two-process tests: the C peer
//! (Tests/integration/peer.c) and a Rust peer built on the safe API.

pub mod process;
pub mod rust_peer;
