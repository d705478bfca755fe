// SPDX-License-Identifier: MIT OR Apache-2.0
// The entry point for GNOME Shell 45 and later, which load extension.js
// as an ES module: it hands the shared modules what they use.

import Clutter from 'gi://Clutter';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import St from 'gi://St';

import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import * as PopupMenu from 'resource:///org/gnome/shell/ui/popupMenu.js';
import * as QuickSettings from 'resource:///org/gnome/shell/ui/quickSettings.js';
import * as RemoteSearch from 'resource:///org/gnome/shell/ui/remoteSearch.js';
import * as Config from 'resource:///org/gnome/shell/misc/config.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

import * as model from './model.js';
import {AgentClient} from './client.js';
import {defineIndicator} from './indicator.js';

export default class HandoffExtension extends Extension {
    enable() {
        const {Indicator} = defineIndicator({
            gi: {Clutter, Gio, GLib, GObject, St},
            shell: {Main, PopupMenu, QuickSettings, RemoteSearch},
            shellMajor: parseInt(Config.PACKAGE_VERSION, 10),
            model,
            AgentClient,
        });
        this._indicator = new Indicator(this.path);
        this._indicator.place();
    }

    disable() {
        this._indicator?.destroy();
        this._indicator = null;
    }
}
