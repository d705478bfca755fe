// SPDX-License-Identifier: MIT OR Apache-2.0
// The options page: the "never offer" list (storage.local `neverOffer`,
// read by the background at every decision) and where this browser would
// hand off (the host's last `status`, kept by the background in
// storage.local `hostState`).

import { normalizeNeverEntry, MAX_NEVER_ENTRIES } from "./offer.js";

const api = globalThis.browser ?? globalThis.chrome;
const $ = (id) => document.getElementById(id);

function item(text, button) {
  const li = document.createElement("li");
  li.textContent = text;
  if (button) li.append(button);
  return li;
}

function showState(state) {
  const devices = $("devices");
  devices.replaceChildren();
  const status = $("status");
  status.className = "";
  if (!state || !state.connected) {
    status.textContent = "The Handoff helper is not reachable" +
      (state && state.reason ? ": " + state.reason : "") +
      ". Is Handoff for Linux installed (handoff browser-host --install-user)?";
    status.className = "off";
  } else if (!state.agent) {
    status.textContent = "The Handoff agent is not running" + (state.reason ? ": " + state.reason : "") + ".";
    status.className = "off";
  } else if (state.devices.length === 0) {
    status.textContent = "The agent runs, but none of your other devices is in reach.";
  } else {
    status.textContent = "The page in front is offered to:";
    for (const name of state.devices) devices.append(item(name));
  }
}

async function neverList() {
  const { neverOffer } = await api.storage.local.get("neverOffer");
  return Array.isArray(neverOffer) ? neverOffer : [];
}

async function showNever() {
  const list = $("never");
  list.replaceChildren();
  for (const entry of await neverList()) {
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "Remove";
    remove.addEventListener("click", async () => {
      const kept = (await neverList()).filter((e) => e !== entry);
      await api.storage.local.set({ neverOffer: kept });
    });
    list.append(item(entry, remove));
  }
}

$("add").addEventListener("submit", async (event) => {
  event.preventDefault();
  const entry = normalizeNeverEntry($("site").value);
  const problem = $("problem");
  if (!entry) {
    problem.textContent = "Not a site name (example.com or *.example.com).";
    return;
  }
  const list = await neverList();
  if (list.length >= MAX_NEVER_ENTRIES) {
    problem.textContent = `The list holds at most ${MAX_NEVER_ENTRIES} sites.`;
    return;
  }
  problem.textContent = "";
  if (!list.includes(entry)) await api.storage.local.set({ neverOffer: [...list, entry] });
  $("site").value = "";
});

api.storage.onChanged.addListener((changes, area) => {
  if (area !== "local") return;
  if ("neverOffer" in changes) showNever();
  if ("hostState" in changes) showState(changes.hostState.newValue);
});

api.storage.local.get("hostState").then(({ hostState }) => showState(hostState));
showNever();
// Ask the host afresh (the answer arrives through storage).
api.runtime.sendMessage({ type: "status" }).catch(() => {});
