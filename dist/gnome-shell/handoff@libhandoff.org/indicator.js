// SPDX-License-Identifier: MIT OR Apache-2.0
/* exported defineIndicator */
// The Quick Settings toggle "Handoff", its menu and the top-bar icon,
// written once for GNOME Shell 43–47. Nothing here imports: `env` brings
// what each entry point's module system gives (entry/legacy.js,
// entry/esm.js): env.gi {Clutter, Gio, GLib, GObject, St}, env.shell
// {Main, PopupMenu, QuickSettings, RemoteSearch}, env.shellMajor, env.model (model.js),
// env.AgentClient (client.js).

let defined = null; // the GObject classes, registered once per shell
// The desktop entry of the agent's history search provider (dist/search).
const HISTORY_PROVIDER = 'org.libhandoff.History.desktop';

function defineIndicator(env) {
    if (defined)
        return defined;
    const {Clutter, Gio, GLib, GObject, St} = env.gi;
    const {Main, PopupMenu, QuickSettings} = env.shell;
    const model = env.model;

    // The app's icon as the agent names it: a themed name or a file.
    function appIcon(name, fallback) {
        if (!name)
            return fallback;
        try {
            return Gio.icon_new_for_string(name);
        } catch (e) {
            return fallback;
        }
    }

    // The shell's own launch context makes the token (an XDG activation
    // token on Wayland, a startup id on X11), so the app the agent starts
    // or raises gets the focus.
    function activationToken(appId, webPage) {
        let info = null;
        try {
            info = appId ? Gio.DesktopAppInfo.new(`${appId}.desktop`)
                : Gio.AppInfo.get_default_for_uri_scheme(webPage.startsWith('http:') ? 'http' : 'https');
        } catch (e) {
            info = null;
        }
        if (!info)
            return '';
        const context = global.create_app_launch_context(global.get_current_time(), -1);
        return context.get_startup_notify_id(info, []) || '';
    }

    function closeQuickSettings() {
        if (Main.panel.closeQuickSettings)
            Main.panel.closeQuickSettings();
        else
            Main.panel.statusArea.quickSettings.menu.close();
    }

    // A row of the menu: an icon, a title and a dimmer line under it.
    const HandoffItem = GObject.registerClass(
    class HandoffItem extends PopupMenu.PopupBaseMenuItem {
        _init(row, gicon, reactive) {
            super._init({reactive, can_focus: reactive, style_class: 'handoff-item'});
            this.row = row;
            this.add_child(new St.Icon({gicon, style_class: 'popup-menu-icon', y_align: Clutter.ActorAlign.CENTER}));
            const box = new St.BoxLayout({vertical: true, x_expand: true});
            this.titleLabel = new St.Label({text: row.title, style_class: 'handoff-title'});
            box.add_child(this.titleLabel);
            this.detailLabel = new St.Label({text: row.detail || '', style_class: 'handoff-detail',
                visible: !!row.detail});
            box.add_child(this.detailLabel);
            this.add_child(box);
            this.label_actor = this.titleLabel;
        }
    });

    const HandoffToggle = GObject.registerClass(
    class HandoffToggle extends QuickSettings.QuickMenuToggle {
        _init(gicon) {
            // 44 renamed the toggle's `label` to `title`.
            super._init(env.shellMajor >= 44 ? {title: 'Handoff', gicon} : {label: 'Handoff', gicon});
            this.connect('destroy', () => this.menu.destroy());
        }
    });

    const Indicator = GObject.registerClass(
    class HandoffIndicator extends QuickSettings.SystemIndicator {
        _init(extensionPath) {
            super._init();
            this._icon = Gio.icon_new_for_string(`${extensionPath}/icons/handoff-symbolic.svg`);
            this._indicator = this._addIndicator();
            this._indicator.gicon = this._icon;
            this._indicator.visible = false;

            this.toggle = new HandoffToggle(this._icon);
            this.quickSettingsItems.push(this.toggle);
            this.toggle.connect('clicked', () => {
                const state = this._client.get('State');
                if (state === 'running' || state === 'paused')
                    this._client.setPaused(state === 'running');
            });

            const menu = this.toggle.menu;
            menu.setHeader(this._icon, 'Handoff', '');
            this.offers = new PopupMenu.PopupMenuSection();
            menu.addMenuItem(this.offers);
            menu.addMenuItem(new PopupMenu.PopupSeparatorMenuItem());
            this.devices = new PopupMenu.PopupSubMenuMenuItem('Devices', false);
            menu.addMenuItem(this.devices);
            this.recent = new PopupMenu.PopupSubMenuMenuItem('Recent', false);
            menu.addMenuItem(this.recent);
            menu.addMenuItem(new PopupMenu.PopupSeparatorMenuItem());
            this.pairing = new PopupMenu.PopupMenuSection();
            menu.addMenuItem(this.pairing);
            // "last seen N min ago" is as of the menu's opening: no timer.
            menu.connect('open-state-changed', (_menu, open) => {
                if (open)
                    this._sync();
            });

            this._client = new env.AgentClient({Gio, GLib}, () => this._sync(),
                (kind, ok, message) => this._told(kind, ok, message));
            this._unhookSearch = this._hookSearch(env.shell.RemoteSearch?.RemoteSearchProvider2);
            this.connect('destroy', () => {
                this._unhookSearch();
                this._client.destroy();
            });
            this._sync();
        }

        // The shell activates a search provider's result with a timestamp
        // only (ActivateResult), so an app continued from Handoff History's
        // results could not take the focus on Wayland. While the agent
        // runs, the extension continues them itself: ContinueRecent with
        // the token of the shell's launch context for this click. `Provider`
        // is the shell's RemoteSearchProvider2 (43, 44: later shells do not
        // export it, and there results go on without a token).
        _hookSearch(Provider) {
            const proto = Provider?.prototype;
            if (typeof proto?.activateResult !== 'function')
                return () => {};
            const original = proto.activateResult;
            const client = this._client;
            proto.activateResult = function (id, terms) {
                const entry = /^h[1-9][0-9]{0,18}$/.test(id) ? id.slice(1) : null;
                if (!entry || this.appInfo?.get_id() !== HISTORY_PROVIDER || client.get('State') === null) {
                    original.call(this, id, terms);
                    return;
                }
                const recent = (client.get('Recent') || []).find(e => e['id'] === entry);
                const appId = recent?.['app-id'] || HISTORY_PROVIDER.replace(/\.desktop$/, '');
                client.continueOffer(entry, activationToken(appId, ''), true);
            };
            return () => {
                proto.activateResult = original;
            };
        }

        // Everything the menu and the icon show, from the agent's properties.
        _sync() {
            const state = this._client.get('State');
            const offers = this._client.get('Offers') || [];
            const shown = model.toggleText(state, offers.length);
            this.toggle.checked = shown.checked;
            this.toggle.reactive = shown.sensitive;
            if ('subtitle' in this.toggle)
                this.toggle.subtitle = shown.subtitle;
            this.toggle.menu.setHeader(this._icon, 'Handoff', shown.subtitle);
            this._indicator.visible = model.indicatorVisible(state, offers.length);
            this._fillOffers(state === null ? [] : offers, state === 'paused');
            this._fillDevices(this._client.get('Devices') || []);
            this._fillRecent(this._client.get('Recent') || []);
            this._fillPairing(state);
        }

        _fillOffers(offers, paused) {
            this.offers.removeAll();
            const fallback = Gio.ThemedIcon.new('application-x-executable-symbolic');
            for (const row of model.offerRows(offers)) {
                if (row.more) {
                    this.offers.addMenuItem(new HandoffItem(row, fallback, false));
                    continue;
                }
                const item = new HandoffItem(row, appIcon(row.icon, fallback), !paused);
                item.connect('activate', () => {
                    this._client.continueOffer(row.id, activationToken(row.appId, row.webPage));
                    closeQuickSettings();
                });
                this.offers.addMenuItem(item);
            }
            if (offers.length === 0) {
                this.offers.addMenuItem(new HandoffItem({title: 'Nothing to continue'},
                    Gio.ThemedIcon.new('content-loading-symbolic'), false));
            }
        }

        _fillDevices(devices) {
            this.devices.menu.removeAll();
            const rows = model.deviceRows(devices, Date.now());
            const online = rows.filter(row => row.online).length;
            this.devices.label.text = devices.length ? `Devices (${online} online)` : 'Devices';
            const icon = Gio.ThemedIcon.new('computer-symbolic');
            for (const row of rows)
                this.devices.menu.addMenuItem(new HandoffItem(row, icon, false));
            if (rows.length === 0)
                this.devices.menu.addMenuItem(new HandoffItem({title: 'No other device yet'}, icon, false));
        }

        _fillRecent(entries) {
            this.recent.menu.removeAll();
            this.recent.visible = entries.length > 0;
            const fallback = Gio.ThemedIcon.new('document-open-recent-symbolic');
            for (const row of model.recentRows(entries)) {
                const item = new HandoffItem(row, appIcon(row.icon, fallback), true);
                item.connect('activate', () => {
                    this._client.continueOffer(row.id, activationToken(row.appId, ''), true);
                    closeQuickSettings();
                });
                this.recent.menu.addMenuItem(item);
            }
        }

        // "Pair a New Device…"; while a pairing runs, its digits to compare
        // with Confirm and Cancel.
        _fillPairing(state) {
            this.pairing.removeAll();
            const digits = this._client.pairingDigits();
            if (digits === null) {
                const pair = new PopupMenu.PopupMenuItem('Pair a New Device…');
                pair.setSensitive(state === 'running' || state === 'paused');
                pair.connect('activate', () => this._client.pair());
                this.pairing.addMenuItem(pair);
                return;
            }
            if (!digits) {
                this.pairing.addMenuItem(new HandoffItem({title: 'Waiting for a new device',
                    detail: 'Run “handoff pair” on it'}, this._icon, false));
            } else {
                const confirm = new PopupMenu.PopupMenuItem(`Confirm code ${digits}`);
                confirm.connect('activate', () => this._client.confirmPairing());
                this.pairing.addMenuItem(confirm);
            }
            const cancel = new PopupMenu.PopupMenuItem('Cancel Pairing');
            cancel.connect('activate', () => this._client.cancelPairing());
            this.pairing.addMenuItem(cancel);
        }

        // What the agent answered, when a person needs to know it.
        _told(kind, ok, message) {
            if (kind === 'paired')
                Main.notify('Handoff', message || (ok ? 'Paired' : 'Not paired'));
            else if (!ok)
                Main.notify('Handoff', message || 'That did not work');
        }

        // Into the Quick Settings menu: 44+ has a call for it; 43 is
        // given the indicator and its items as its own are.
        place() {
            const quickSettings = Main.panel.statusArea.quickSettings;
            if (quickSettings.addExternalIndicator) {
                quickSettings.addExternalIndicator(this);
            } else {
                quickSettings._indicators.insert_child_at_index(this, 0);
                quickSettings._addItems(this.quickSettingsItems);
            }
        }

        destroy() {
            this.quickSettingsItems.forEach(item => item.destroy());
            super.destroy();
        }
    });

    defined = {Indicator};
    return defined;
}
