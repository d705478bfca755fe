// SPDX-License-Identifier: MIT OR Apache-2.0
//! Continuity: how an application reaches the account's other devices.

use std::ffi::{c_char, c_int, CString};
use std::mem::size_of;
use std::time::Duration;

use crate::account::Account;
use crate::application::ApplicationRef;
use crate::error::{check, Result};
use crate::strings::{c_string, c_string_opt, ptr_or_null};
use crate::sys;

/// A device's role (`handoff_device_role`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DeviceRole {
    /// Sends and receives.
    #[default]
    Full,
    /// Offers its activities but is never offered any (Apple: watchOS).
    SendOnly,
}

/// Where an application's continuity runs (`handoff_continuity_mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ContinuityMode {
    /// The per-user handoff agent when it serves this user and account and
    /// no device-level option (device id or name, send-only role, beacon
    /// port, multicast off, peers, channel address) is set; else embedded.
    /// Without such an option it follows the agent: to it when it starts,
    /// back to an engine of its own when it stops.
    #[default]
    Auto,
    /// Through the agent, or [`ApplicationRef::start_continuity`] fails.
    Agent,
    /// An engine in this process.
    Embedded,
}

/// How an application reaches the account's other devices
/// (`handoff_continuity_options`). Start from [`ContinuityOptions::new`];
/// what is not set takes the library's default.
///
/// ```no_run
/// # fn main() -> handoff::Result<()> {
/// let account = handoff::Account::load(None)?;
/// let options = handoff::ContinuityOptions::new(&account)
///     .device_name("Laptop")
///     .beacon_port(52380)
///     .peer("192.0.2.7:52380");
/// # let _ = options; Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct ContinuityOptions<'a> {
    account: &'a Account,
    device_id: Option<String>,
    device_name: Option<String>,
    role: DeviceRole,
    beacon_port: u16,
    multicast: bool,
    peers: Vec<String>,
    channel_address: Option<String>,
    fetch_timeout: Option<Duration>,
    connect_timeout: Option<Duration>,
    connection_reuse: Option<Option<Duration>>,
    mode: ContinuityMode,
}

impl<'a> ContinuityOptions<'a> {
    /// Options for `account` (copied when continuity starts), with every
    /// other setting at its default: the person's device (id, name and
    /// role from the device file `handoff device` keeps), beacon port
    /// 52370, multicast on, no unicast peers.
    pub fn new(account: &'a Account) -> ContinuityOptions<'a> {
        ContinuityOptions {
            account,
            device_id: None,
            device_name: None,
            role: DeviceRole::Full,
            beacon_port: 0,
            multicast: true,
            peers: Vec::new(),
            channel_address: None,
            fetch_timeout: None,
            connect_timeout: None,
            connection_reuse: None,
            mode: ContinuityMode::Auto,
        }
    }

    /// This device's id: 32 hex digits. Default: the id of the device file
    /// in the account directory (`$XDG_CONFIG_HOME/handoff/device`, created
    /// on first use), the one every app of this person on this host shares;
    /// apps of one device do not hand off to each other, so two processes
    /// that must (tests, demos) each need their own id or
    /// `XDG_CONFIG_HOME`.
    pub fn device_id(mut self, id: impl Into<String>) -> Self {
        self.device_id = Some(id.into());
        self
    }

    /// The name the other devices show (default: the device file's name,
    /// as `handoff device --name` set it; the host name with an explicit
    /// id).
    pub fn device_name(mut self, name: impl Into<String>) -> Self {
        self.device_name = Some(name.into());
        self
    }

    /// The device's role (default: the device file's role; full with an
    /// explicit id). [`DeviceRole::SendOnly`] wins over the file.
    pub fn role(mut self, role: DeviceRole) -> Self {
        self.role = role;
        self
    }

    /// The UDP port of the discovery beacons (default 52370). Each process
    /// on one host needs its own port to receive unicast beacons.
    pub fn beacon_port(mut self, port: u16) -> Self {
        self.beacon_port = port;
        self
    }

    /// Whether beacons also go to the link's multicast group (default
    /// `true`); `false` uses only the unicast peers.
    pub fn multicast(mut self, on: bool) -> Self {
        self.multicast = on;
        self
    }

    /// Adds a unicast peer that also gets every beacon: `"host:port"`,
    /// IPv4 (`"127.0.0.1:52371"`), IPv6 (`"[::1]:52371"`) or a host name
    /// (`"ada.local:52370"`, resolved at start and every 60 s).
    pub fn peer(mut self, address: impl Into<String>) -> Self {
        self.peers.push(address.into());
        self
    }

    /// The address the TLS channel listens on, `"host:port"` (default
    /// `"[::]:0"`: every IPv6 and IPv4 address on one port, IPv4 alone on a
    /// host without IPv6; a free port, announced in the beacons).
    pub fn channel_address(mut self, address: impl Into<String>) -> Self {
        self.channel_address = Some(address.into());
        self
    }

    /// Time the main thread has to hand over an activity before the
    /// receiver gets [`crate::ErrorCode::RemoteApplicationTimedOut`]
    /// (default 5 s; at least 1 ms).
    pub fn fetch_timeout(mut self, timeout: Duration) -> Self {
        self.fetch_timeout = Some(timeout);
        self
    }

    /// Time to connect to a device (TCP), and as much again to authenticate
    /// it (the TLS handshake) (default 3 s each).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// How long an idle authenticated connection is kept for the next
    /// handoff (default 10 s); `None`: never kept, every handoff connects
    /// afresh.
    pub fn connection_reuse(mut self, keep: Option<Duration>) -> Self {
        self.connection_reuse = Some(keep);
        self
    }

    /// Where continuity runs (default [`ContinuityMode::Auto`]);
    /// [`ApplicationRef::continuity_mode`] tells which one was chosen.
    pub fn mode(mut self, mode: ContinuityMode) -> Self {
        self.mode = mode;
        self
    }
}

/// Milliseconds for the C struct, where 0 means "default": a set duration
/// is at least 1 ms and at most `c_int::MAX`.
fn millis(d: Duration) -> c_int {
    c_int::try_from(d.as_millis()).unwrap_or(c_int::MAX).max(1)
}

impl ApplicationRef {
    /// Starts Handoff between devices: beacons announce the current
    /// activity to the account's other devices, a TLS 1.3 channel answers
    /// their fetches, and what they offer arrives as
    /// [`crate::ApplicationDelegate::activity_available`]. Once per
    /// application. [`crate::ErrorCode::InvalidArgument`] for a malformed
    /// peer or address, [`crate::ErrorCode::InvalidValue`] for a device id
    /// that is not 32 lowercase hex digits, [`crate::ErrorCode::Io`] when a
    /// socket cannot be opened, [`crate::ErrorCode::InvalidState`] when
    /// already started. With [`ContinuityMode::Agent`]:
    /// [`crate::ErrorCode::ConnectionUnavailable`] when no agent serves this
    /// user (the message names its socket), [`crate::ErrorCode::InvalidState`]
    /// when it serves another account, [`crate::ErrorCode::InvalidArgument`]
    /// for a device-level option.
    pub fn start_continuity(&self, options: &ContinuityOptions<'_>) -> Result<()> {
        let device_id = c_string_opt(options.device_id.as_deref(), "the device id")?;
        let device_name = c_string_opt(options.device_name.as_deref(), "the device name")?;
        let channel = c_string_opt(options.channel_address.as_deref(), "the channel address")?;
        let peers: Vec<CString> = options
            .peers
            .iter()
            .map(|p| c_string(p, "a peer"))
            .collect::<Result<_>>()?;
        let peer_pointers: Vec<*const c_char> = peers.iter().map(|p| p.as_ptr()).collect();
        let raw = sys::handoff_continuity_options {
            size: size_of::<sys::handoff_continuity_options>(),
            account: options.account.as_ptr(),
            device_id: ptr_or_null(&device_id),
            device_name: ptr_or_null(&device_name),
            role: match options.role {
                DeviceRole::Full => sys::HANDOFF_DEVICE_ROLE_FULL,
                DeviceRole::SendOnly => sys::HANDOFF_DEVICE_ROLE_SEND_ONLY,
            },
            beacon_port: c_int::from(options.beacon_port),
            disable_multicast: c_int::from(!options.multicast),
            peers: if peer_pointers.is_empty() {
                std::ptr::null()
            } else {
                peer_pointers.as_ptr()
            },
            peer_count: peer_pointers.len(),
            channel_address: ptr_or_null(&channel),
            fetch_timeout_ms: options.fetch_timeout.map_or(0, millis),
            connect_timeout_ms: options.connect_timeout.map_or(0, millis),
            connection_reuse_ms: match options.connection_reuse {
                None => 0,
                Some(None) => -1,
                Some(Some(keep)) => millis(keep),
            },
            mode: match options.mode {
                ContinuityMode::Auto => sys::HANDOFF_CONTINUITY_MODE_AUTO,
                ContinuityMode::Agent => sys::HANDOFF_CONTINUITY_MODE_AGENT,
                ContinuityMode::Embedded => sys::HANDOFF_CONTINUITY_MODE_EMBEDDED,
            },
        };
        // SAFETY: a live application; every pointer in `raw` is valid for
        // the call (the library copies what it keeps).
        check(unsafe { sys::handoff_application_start_continuity(self.as_ptr(), &raw) })
    }

    /// Where continuity runs now: [`ContinuityMode::Agent`] or
    /// [`ContinuityMode::Embedded`] (with `Auto` it changes as the app
    /// follows the agent starting and stopping).
    /// [`crate::ErrorCode::InvalidState`] before continuity is started.
    pub fn continuity_mode(&self) -> Result<ContinuityMode> {
        let mut out: sys::handoff_continuity_mode = sys::HANDOFF_CONTINUITY_MODE_AUTO;
        // SAFETY: a live application and a valid out pointer.
        check(unsafe { sys::handoff_application_get_continuity_mode(self.as_ptr(), &mut out) })?;
        Ok(match out {
            sys::HANDOFF_CONTINUITY_MODE_AGENT => ContinuityMode::Agent,
            _ => ContinuityMode::Embedded,
        })
    }
}
