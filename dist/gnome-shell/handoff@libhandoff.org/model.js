// SPDX-License-Identifier: MIT OR Apache-2.0
/* exported offerRows, deviceRows, recentRows, toggleText, indicatorVisible, lastSeenText */
// What the Quick Settings menu shows, from the properties of the agent's
// org.libhandoff.Agent1 (docs/agent.md §15) as plain JavaScript values.
// No GNOME import: both module systems load this file as it is, and
// Tests run it in plain gjs.

const MAX_ROWS = 16; // like the tray's menu: then "and N more"

function text(value) {
    return typeof value === 'string' ? value : '';
}

// One row per offer, newest first as the agent gives them: the title
// (else the activity type), the app that continues it (else "web page")
// and the device it came from.
function offerRows(offers) {
    const rows = (offers || []).slice(0, MAX_ROWS).map(offer => ({
        id: text(offer['id']),
        title: text(offer['title']) || text(offer['type']) || 'Untitled',
        detail: `${text(offer['app-name']) || (text(offer['web-page']) ? 'web page' : 'an app')}` +
            ` · from ${text(offer['device-name']) || 'another device'}`,
        appId: text(offer['app-id']),
        icon: text(offer['icon']),
        webPage: text(offer['web-page']),
    }));
    return withMore(rows, (offers || []).length);
}

// "online", or when it was last heard of.
function lastSeenText(device, nowMs) {
    if (device['online'])
        return 'online';
    const seen = Number(device['last-seen'] || 0);
    if (!seen)
        return 'offline';
    const minutes = Math.max(0, Math.floor((nowMs - seen) / 60000));
    if (minutes < 1)
        return 'offline, last seen just now';
    if (minutes < 60)
        return `offline, last seen ${minutes} min ago`;
    const hours = Math.floor(minutes / 60);
    if (hours < 48)
        return `offline, last seen ${hours} h ago`;
    return `offline, last seen ${Math.floor(hours / 24)} days ago`;
}

// The account's other devices, online ones first, then by name.
function deviceRows(devices, nowMs) {
    const sorted = (devices || []).slice().sort((a, b) =>
        (b['online'] ? 1 : 0) - (a['online'] ? 1 : 0) || text(a['name']).localeCompare(text(b['name'])));
    const rows = sorted.slice(0, MAX_ROWS).map(device => ({
        id: text(device['id']),
        title: text(device['name']) || text(device['id']),
        detail: lastSeenText(device, nowMs),
        online: !!device['online'],
    }));
    return withMore(rows, sorted.length);
}

// The history's newest entries: title, and the app and device.
function recentRows(entries) {
    return (entries || []).slice(0, MAX_ROWS).map(entry => ({
        id: text(entry['id']),
        title: text(entry['title']) || text(entry['app-name']) || 'Untitled',
        detail: [text(entry['app-name']), text(entry['device-name']) && `from ${text(entry['device-name'])}`]
            .filter(Boolean).join(' · '),
        appId: text(entry['app-id']),
        icon: text(entry['icon']),
    }));
}

function withMore(rows, total) {
    if (total > rows.length)
        rows.push({more: true, title: `and ${total - rows.length} more`});
    return rows;
}

// The toggle: checked while Handoff runs; its subtitle says what is there.
// `state` is Agent1's State, or null when no agent owns the name.
function toggleText(state, offerCount) {
    if (state === null || state === undefined)
        return {checked: false, sensitive: false, subtitle: 'Agent not running'};
    if (state === 'paused')
        return {checked: false, sensitive: true, subtitle: 'Paused'};
    if (state === 'waiting-for-account')
        return {checked: false, sensitive: false, subtitle: 'Not set up'};
    if (offerCount > 0)
        return {checked: true, sensitive: true,
            subtitle: offerCount === 1 ? '1 to continue' : `${offerCount} to continue`};
    return {checked: true, sensitive: true, subtitle: 'Nothing to continue'};
}

// The top-bar icon shows only while something can be continued.
function indicatorVisible(state, offerCount) {
    return state === 'running' && offerCount > 0;
}
