// SPDX-License-Identifier: MIT OR Apache-2.0
/* exported init */
// The entry point for GNOME Shell 43 and 44, which load extension.js with
// gjs's legacy `imports`: it hands the shared modules what they use.

const {Clutter, Gio, GLib, GObject, St} = imports.gi;
const Main = imports.ui.main;
const PopupMenu = imports.ui.popupMenu;
const QuickSettings = imports.ui.quickSettings;
const RemoteSearch = imports.ui.remoteSearch;
const Config = imports.misc.config;
const Me = imports.misc.extensionUtils.getCurrentExtension();

class HandoffExtension {
    enable() {
        const {Indicator} = Me.imports.indicator.defineIndicator({
            gi: {Clutter, Gio, GLib, GObject, St},
            shell: {Main, PopupMenu, QuickSettings, RemoteSearch},
            shellMajor: parseInt(Config.PACKAGE_VERSION, 10),
            model: Me.imports.model,
            AgentClient: Me.imports.client.AgentClient,
        });
        this._indicator = new Indicator(Me.path);
        this._indicator.place();
    }

    disable() {
        this._indicator?.destroy();
        this._indicator = null;
    }
}

function init() {
    return new HandoffExtension();
}
