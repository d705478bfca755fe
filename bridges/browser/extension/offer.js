// SPDX-License-Identifier: MIT OR Apache-2.0
// What the extension offers: which pages may become the browser's current
// activity, and the person's "never offer" list. Shared by the background
// script and the options page; no browser API here, so it stays testable.

// The host refuses longer URLs (bridges design); not offering them here
// keeps the refusal from being the normal path.
export const MAX_URL_BYTES = 4096;
// The host cuts titles to 256 bytes; sending at most this many code points
// keeps every message far below the host's 64 KiB.
export const MAX_TITLE_CHARS = 256;
// A list the person keeps by hand; bounded so storage stays small.
export const MAX_NEVER_ENTRIES = 500;

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

// A host name as the person typed it, or "*.example.com", to the form kept
// in storage (lowercase, no trailing dot), or null when it is not one.
// A full URL is accepted too: its host name is kept.
export function normalizeNeverEntry(text) {
  let s = String(text).trim().toLowerCase();
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(s)) {
    try { s = new URL(s).hostname; } catch { return null; }
  }
  s = s.replace(/\.$/, "");
  let wildcard = false;
  if (s.startsWith("*.")) { wildcard = true; s = s.slice(2); }
  if (s.length === 0 || s.length > 253) return null;
  if (!s.split(".").every((label) => LABEL.test(label))) return null;
  return wildcard ? "*." + s : s;
}

// "example.com" covers that host; "*.example.com" covers every host under
// it and example.com itself (for a list of what never to offer, covering
// more is the safe side).
export function hostIsListed(hostname, entries) {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  for (const entry of entries) {
    if (entry.startsWith("*.")) {
      const base = entry.slice(2);
      if (host === base || host.endsWith("." + base)) return true;
    } else if (host === entry) {
      return true;
    }
  }
  return false;
}

// Whether a tab may be offered: { ok: true } or { ok: false, reason }.
// Never a private/incognito tab, only http(s), no credentials in the URL.
export function offerable(tab, neverOffer) {
  if (!tab) return { ok: false, reason: "no tab" };
  if (tab.incognito) return { ok: false, reason: "private window" };
  let url;
  try { url = new URL(tab.url || ""); } catch { return { ok: false, reason: "no web page" }; }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, reason: "not a web page" };
  if (url.username || url.password) return { ok: false, reason: "the address holds a password" };
  if (new TextEncoder().encode(tab.url).length > MAX_URL_BYTES) return { ok: false, reason: "address too long" };
  if (hostIsListed(url.hostname, neverOffer)) return { ok: false, reason: "on the never-offer list" };
  return { ok: true };
}

// An address as a browser spells it in a tab's title before the page's
// own title arrives: no scheme, no "www.", no trailing slash, unescaped.
function spelledAddress(text) {
  let s = String(text).trim().toLowerCase().replace(/^[a-z][a-z0-9+.-]*:\/\//, "").replace(/^www\./, "");
  try { s = decodeURI(s); } catch { /* kept as it is */ }
  return s.replace(/\/+$/, "");
}

// Whether the tab's title is only a stand-in for the page's own: empty, or
// its address (Chromium titles a loading tab "host:port/path").
export function titleIsPlaceholder(tab) {
  if (!tab.title || !tab.title.trim()) return true;
  return spelledAddress(tab.title) === spelledAddress(tab.url || "");
}

// The page's title, cut on a code point boundary; the full URL when the
// page has no title of its own (never the browser's "host:port/path").
export function offeredTitle(tab) {
  const title = titleIsPlaceholder(tab) ? tab.url : tab.title;
  return Array.from(title).slice(0, MAX_TITLE_CHARS).join("");
}

// Whether the host may make us open this URL: http(s) only, never
// javascript:, file:, data: or a browser page.
export function openable(text) {
  if (typeof text !== "string" || text.length > 2 * MAX_URL_BYTES) return false;
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
