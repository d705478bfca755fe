// SPDX-License-Identifier: MIT OR Apache-2.0
// The extension's background: a service worker in Chromium, an event page
// in Firefox (one source: manifest.json names it both ways). While a
// window of this browser has focus, its active tab is offered to the host
// as `current`; focus lost, the tab closed, or a page not offered sends
// `resign`. The host's `open` opens a tab. Protocol: bridges/browser/extension/README.md.

import { offerable, offeredTitle, openable, titleIsPlaceholder } from "./offer.js";
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
// Chromium on X11 sends no windows.onFocusChanged when focus moves between
// its window and another program's, either way (Chromium 156 under
// openbox: neither WINDOW_ID_NONE when focus goes, nor, most times, the
// window's id when it comes back), yet windows.getLastFocused says whether
// its window has focus. So in Chromium, while the host is connected, the
// extension asks every FOCUS_CHECK_MS; Firefox sends the events and
// nothing runs there.
const WATCHES_FOCUS = BROWSER === "chromium";
const FOCUS_CHECK_MS = 500;
let focusCheck = null;
// A tab that is loading is titled with its address until the page's title
// arrives; its offer waits for that title (a tabs.onUpdated event) at most
// TITLE_WAIT_MS, then goes with the URL as title and is updated when the
// title comes. { tabId, url, since, timer } while waiting.
const TITLE_WAIT_MS = 3000;
let titleWait = null;
// Each refresh takes a number; an answer that arrives after a newer refresh
// started is dropped, so a slow lookup never overrides a later event.
let generation = 0;

const port = new HostPort(api, BROWSER, {
  onMessage: hostSaid,
  onState: (connected, reason) => {
    offered = null;
    stopWaitingForTitle();
    stopWatchingFocus();
    saveState({ connected, reason: connected ? "" : reason });
    if (connected) {
      watchFocus();
      refresh();
    }
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
  if (!decision.tab) return resign();
  if (waitsForTitle(decision.tab)) return;
  offer(decision.tab);
}

// Whether `tab` is still loading with a stand-in title and may wait for
// its own; the first time, a timer ends the wait. What is offered stays
// as it is meanwhile.
function waitsForTitle(tab) {
  if (tab.status !== "loading" || !titleIsPlaceholder(tab)) {
    stopWaitingForTitle();
    return false;
  }
  if (titleWait && titleWait.tabId === tab.id && titleWait.url === tab.url) {
    return Date.now() - titleWait.since < TITLE_WAIT_MS;
  }
  stopWaitingForTitle();
  titleWait = { tabId: tab.id, url: tab.url, since: Date.now(), timer: setTimeout(refresh, TITLE_WAIT_MS) };
  return true;
}

function stopWaitingForTitle() {
  if (titleWait === null) return;
  clearTimeout(titleWait.timer);
  titleWait = null;
}

function offer(tab) {
  const title = offeredTitle(tab);
  if (offered && offered.url === tab.url && offered.title === title) {
    offered.tabId = tab.id;
    return;
  }
  if (port.send({ type: "current", url: tab.url, title })) {
    offered = { tabId: tab.id, url: tab.url, title };
  }
}

function resign() {
  stopWaitingForTitle();
  if (offered === null) return;
  offered = null;
  port.send({ type: "resign" });
}

// Chromium only (WATCHES_FOCUS), from the host's connection to its end.
function watchFocus() {
  if (!WATCHES_FOCUS || focusCheck !== null) return;
  focusCheck = setInterval(checkFocus, FOCUS_CHECK_MS);
}

// Refreshes when the browser's answer differs from what the events said:
// focus gone while a page is offered, or back while nothing is.
async function checkFocus() {
  let now = NONE;
  try {
    const w = await api.windows.getLastFocused();
    if (w.focused) now = w.id;
  } catch {
    now = NONE;
  }
  const changed = focusedWindow === undefined ? (now === NONE) !== (offered === null) : now !== focusedWindow;
  focusedWindow = now;
  if (changed) refresh();
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
