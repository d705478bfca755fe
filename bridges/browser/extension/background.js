// SPDX-License-Identifier: MIT OR Apache-2.0
// The extension's background: a service worker in Chromium, an event page
// in Firefox (one source: manifest.json names it both ways). While a
// window of this browser has focus, its active tab is offered to the host
// as `current`; focus lost, the tab closed, or a page not offered sends
// `resign`. The host's `open` opens a tab. Protocol: bridges/browser/extension/README.md.

import { offerable, offeredTitle, openable } from "./offer.js";
import { HostPort } from "./host-port.js";

const api = globalThis.browser ?? globalThis.chrome;
const BROWSER = typeof api.runtime.getBrowserInfo === "function" ? "firefox" : "chromium";
const NONE = api.windows.WINDOW_ID_NONE;

// What the host was last told on this port: null (nothing offered) or
// { tabId, url, title }. Reset on every new port: a new host offers nothing.
let offered = null;
// The window that has focus as the events told us; undefined when not
// known (a fresh service worker), then asked of the browser.
let focusedWindow;
// Chromium on X11 does not send windows.onFocusChanged(WINDOW_ID_NONE)
// when another program's window takes the focus (seen with Chromium 156
// under openbox; it does send the window's id when focus comes back), yet
// windows.get says `focused: false`. So while a page is offered, and only
// then, the extension asks every FOCUS_CHECK_MS whether its window still
// has focus. Nothing runs while nothing is offered.
const FOCUS_CHECK_MS = 2000;
let focusCheck = null;
// Each refresh takes a number; an answer that arrives after a newer refresh
// started is dropped, so a slow lookup never overrides a later event.
let generation = 0;

const port = new HostPort(api, BROWSER, {
  onMessage: hostSaid,
  onState: (connected, reason) => {
    offered = null;
    stopWatchingFocus();
    saveState({ connected, reason: connected ? "" : reason });
    if (connected) refresh();
  },
});

// ---------------------------------------------------------------- offering

async function neverOfferList() {
  const { neverOffer } = await api.storage.local.get("neverOffer");
  return Array.isArray(neverOffer) ? neverOffer.filter((e) => typeof e === "string") : [];
}

// What should be offered now: { tab } or { reason } for nothing.
async function decide() {
  let windowId = focusedWindow;
  if (windowId === undefined) {
    try {
      const w = await api.windows.getLastFocused();
      windowId = w.focused ? w.id : NONE;
    } catch {
      windowId = NONE;
    }
    focusedWindow = windowId;
  }
  if (windowId === NONE) return { reason: "no window of the browser has focus" };
  let tabs;
  try {
    tabs = await api.tabs.query({ windowId, active: true });
  } catch {
    return { reason: "the window went away" };
  }
  const tab = tabs[0];
  const verdict = offerable(tab, await neverOfferList());
  return verdict.ok ? { tab } : { reason: verdict.reason };
}

async function refresh() {
  const mine = ++generation;
  port.ensure();
  const decision = await decide();
  if (mine !== generation) return;
  if (decision.tab) offer(decision.tab);
  else resign();
}

function offer(tab) {
  const title = offeredTitle(tab);
  if (offered && offered.url === tab.url && offered.title === title) {
    offered.tabId = tab.id;
    return;
  }
  if (port.send({ type: "current", url: tab.url, title })) {
    offered = { tabId: tab.id, url: tab.url, title };
    watchFocus();
  }
}

function resign() {
  stopWatchingFocus();
  if (offered === null) return;
  offered = null;
  port.send({ type: "resign" });
}

function watchFocus() {
  if (focusCheck !== null) return;
  focusCheck = setInterval(async () => {
    if (offered === null) return stopWatchingFocus();
    let focused = false;
    try {
      focused = (await api.windows.getLastFocused()).focused;
    } catch {
      focused = false;
    }
    if (!focused && offered !== null) {
      focusedWindow = NONE;
      refresh();
    }
  }, FOCUS_CHECK_MS);
}

function stopWatchingFocus() {
  if (focusCheck === null) return;
  clearInterval(focusCheck);
  focusCheck = null;
}

// ---------------------------------------------------------------- the host

function hostSaid(message) {
  switch (message.type) {
    case "status":
      saveState({
        connected: true,
        agent: message.agent === true,
        devices: Array.isArray(message.devices) ? message.devices.filter((d) => typeof d === "string").slice(0, 64) : [],
        reason: typeof message.reason === "string" ? message.reason : "",
      });
      break;
    case "open":
      openPage(message.url).catch((error) => console.warn("handoff: could not open the page:", error));
      break;
    case "error":
      console.warn("handoff: the host refused", message.about, ":", message.error);
      break;
    default:
      console.warn("handoff: unknown message from the host:", message.type);
  }
}

// A page handed from another device: a new tab in the last focused normal
// window (never a private one), or a new window; that window is focused.
async function openPage(url) {
  if (!openable(url)) {
    console.warn("handoff: not opening a page that is not http(s)");
    return;
  }
  let win = null;
  try {
    const w = await api.windows.getLastFocused({ windowTypes: ["normal"] });
    if (w && !w.incognito) win = w;
  } catch {
    win = null;
  }
  if (win) {
    await api.tabs.create({ windowId: win.id, url, active: true });
    await api.windows.update(win.id, { focused: true });
  } else {
    await api.windows.create({ url, focused: true });
  }
}

// What the options page shows, kept where it can read it.
async function saveState(change) {
  const { hostState } = await api.storage.local.get("hostState");
  const next = Object.assign({ connected: false, agent: false, devices: [], reason: "" }, hostState, change, {
    browser: BROWSER,
    at: Date.now(),
  });
  if (!change.connected) Object.assign(next, { agent: false, devices: [] });
  await api.storage.local.set({ hostState: next });
}

// ---------------------------------------------------------------- events
// Registered at the top level, so a stopped service worker is started for them.

api.windows.onFocusChanged.addListener((windowId) => {
  focusedWindow = windowId;
  refresh();
});

// Whether a tab event in `windowId` may change what is offered. Chromium
// also sends onFocusChanged(WINDOW_ID_NONE) while its window keeps the
// focus (when a tab is opened programmatically), so after NONE the next
// tab event asks the browser again instead of trusting it.
function mayConcern(windowId) {
  if (focusedWindow === NONE) focusedWindow = undefined;
  return focusedWindow === undefined || windowId === focusedWindow;
}

api.tabs.onActivated.addListener(({ windowId }) => {
  if (mayConcern(windowId)) refresh();
});

api.tabs.onUpdated.addListener((tabId, change, tab) => {
  if (!tab.active) return;
  if (!("url" in change) && !("title" in change) && change.status !== "complete") return;
  if (mayConcern(tab.windowId)) refresh();
});

api.tabs.onRemoved.addListener((tabId) => {
  if (offered && offered.tabId === tabId) {
    generation++;
    resign();
  }
  refresh();
});

api.windows.onRemoved.addListener((windowId) => {
  if (windowId === focusedWindow) focusedWindow = undefined;
});

api.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && "neverOffer" in changes) refresh();
});

api.runtime.onMessage.addListener((message, sender, reply) => {
  if (sender.id !== api.runtime.id || !message || message.type !== "status") return false;
  // The options page asks afresh; the answer lands in storage.
  if (port.connected) port.send({ type: "status" });
  else port.ensure();
  reply({ ok: true });
  return false;
});

api.runtime.onStartup.addListener(() => port.ensure());
api.runtime.onInstalled.addListener(() => port.ensure());

port.ensure();
