// SPDX-License-Identifier: MIT OR Apache-2.0
// The native messaging port to `handoff browser-host` (org.libhandoff.browser):
// connects, says hello, and reconnects with back-off when the host goes
// away (no agent yet, host not installed, host restarted). An open port
// also keeps Chromium's service worker alive; when it is not, the next
// browser event wakes the worker and `ensure()` tries again.

export const HOST_NAME = "org.libhandoff.browser";
export const PROTOCOL_VERSION = 1;
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 60000;

export class HostPort {
  // api: `browser` or `chrome`; browserName: "firefox" | "chromium";
  // onMessage(message) for every object the host sends; onState(connected,
  // reason) when the port opens or drops.
  constructor(api, browserName, { onMessage, onState }) {
    this.api = api;
    this.browserName = browserName;
    this.onMessage = onMessage;
    this.onState = onState;
    this.port = null;
    this.timer = null;
    this.delay = FIRST_DELAY_MS;
  }

  get connected() { return this.port !== null; }

  // Connects now unless connected or a retry is already scheduled.
  ensure() {
    if (this.port || this.timer) return;
    this.connect();
  }

  connect() {
    let port;
    try {
      port = this.api.runtime.connectNative(HOST_NAME);
    } catch (error) {
      this.dropped(String(error && error.message || error));
      return;
    }
    this.port = port;
    port.onMessage.addListener((message) => {
      // The host answered: the connection works, start back-off afresh.
      this.delay = FIRST_DELAY_MS;
      if (message && typeof message === "object" && !Array.isArray(message)) this.onMessage(message);
    });
    port.onDisconnect.addListener((p) => {
      if (this.port !== port) return;
      const error = (p && p.error && p.error.message) ||
        (this.api.runtime.lastError && this.api.runtime.lastError.message) || "the host ended";
      this.port = null;
      this.dropped(error);
    });
    this.send({ type: "hello", browser: this.browserName, version: PROTOCOL_VERSION });
    this.onState(true, "");
  }

  dropped(reason) {
    this.onState(false, reason);
    const delay = this.delay;
    this.delay = Math.min(this.delay * 2, MAX_DELAY_MS);
    this.timer = setTimeout(() => { this.timer = null; this.ensure(); }, delay);
  }

  // Sends one message; false when there is no port (the caller's state is
  // sent again after the next hello).
  send(message) {
    if (!this.port) { this.ensure(); if (!this.port) return false; }
    try {
      this.port.postMessage(message);
      return true;
    } catch (error) {
      return false;
    }
  }
}
