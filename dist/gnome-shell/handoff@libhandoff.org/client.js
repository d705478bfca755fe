// SPDX-License-Identifier: MIT OR Apache-2.0
/* exported AgentClient */
// The agent's session-bus API, org.libhandoff.Agent1 (docs/agent.md §15),
// as the extension uses it: the cached properties, a callback when any of
// them or the name's owner changes (PropertiesChanged, NameOwnerChanged:
// nothing is polled), and the methods. `gi` is {Gio, GLib}: each entry
// point passes its own module system's.

const BUS_NAME = 'org.libhandoff.Agent';
const OBJECT_PATH = '/org/libhandoff/Agent';
const INTERFACE = 'org.libhandoff.Agent1';
const PAIRING_INTERFACE = 'org.libhandoff.Pairing1';

// Both interfaces, as dist/dbus/org.libhandoff.Agent1.xml says them: the
// build (mk/gnome-shell.sh) puts that file's text here, so the proxy knows
// every property it caches and follows in PropertiesChanged.
const AGENT_XML = `@AGENT1_XML@`;

var AgentClient = class AgentClient {
    // `onChanged()` runs after any property or the owner changed;
    // `onEvent(kind, ok, message)` for what a person is told: a
    // continuation's end ("continued"), a pairing's ("paired"), a failed call.
    constructor(gi, onChanged, onEvent) {
        this._gi = gi;
        this._onChanged = onChanged;
        this._onEvent = onEvent;
        this._cancellable = new gi.Gio.Cancellable();
        this._node = gi.Gio.DBusNodeInfo.new_for_xml(AGENT_XML);
        this.proxy = null;
        this.pairing = null;
        this._handlers = []; // [object, id]: disconnected by destroy()
        gi.Gio.DBusProxy.new(gi.Gio.DBus.session,
            gi.Gio.DBusProxyFlags.DO_NOT_AUTO_START, this._node.lookup_interface(INTERFACE),
            BUS_NAME, OBJECT_PATH, INTERFACE, this._cancellable, (_source, result) => {
                try {
                    this.proxy = gi.Gio.DBusProxy.new_finish(result);
                } catch (e) {
                    if (!e.matches(gi.Gio.IOErrorEnum, gi.Gio.IOErrorEnum.CANCELLED))
                        logError(e, 'Handoff: no proxy for the agent');
                    return;
                }
                this._watch(this.proxy, 'g-properties-changed', () => this._onChanged());
                this._watch(this.proxy, 'notify::g-name-owner', () => this._onChanged());
                this._watch(this.proxy, 'g-signal', (_proxy, _sender, name, parameters) => {
                    if (name === 'Continued') {
                        const [, ok, message] = parameters.deepUnpack();
                        this._onEvent('continued', ok, message);
                    }
                });
                this._onChanged();
            });
    }

    // Agent1's property `name` as plain values, or null while no agent
    // owns the name (the proxy then caches nothing).
    get(name) {
        if (!this.proxy || !this.proxy.g_name_owner)
            return null;
        const value = this.proxy.get_cached_property(name);
        return value ? value.recursiveUnpack() : null;
    }

    // Continues offer `id` (or history entry `id` when `recent`) with the
    // activation token the shell made for the launch.
    continueOffer(id, token, recent = false) {
        const {GLib} = this._gi;
        const platformData = {};
        if (token)
            platformData['activation-token'] = new GLib.Variant('s', token);
        this._call(recent ? 'ContinueRecent' : 'Continue', new GLib.Variant('(sa{sv})', [id, platformData]));
    }

    setPaused(paused) {
        this._call(paused ? 'Pause' : 'Resume', null);
    }

    // Starts a pairing; the agent's Pairing1 object tells the digits to
    // compare (onChanged) and the end (onEvent 'paired').
    pair() {
        this._call('Pair', null, reply => {
            const [path] = reply.deepUnpack();
            this._followPairing(path);
        });
    }

    confirmPairing() {
        this.pairing?.call('Confirm', null, this._gi.Gio.DBusCallFlags.NONE, -1, null, null);
    }

    cancelPairing() {
        this.pairing?.call('Cancel', null, this._gi.Gio.DBusCallFlags.NONE, -1, null, null);
    }

    // The digits the pairing shows ("" until the new device answers), or
    // null while no pairing runs.
    pairingDigits() {
        if (!this.pairing)
            return null;
        const value = this.pairing.get_cached_property('Digits');
        return value ? value.deepUnpack() : '';
    }

    _followPairing(path) {
        const {Gio} = this._gi;
        if (this.pairing?.g_object_path === path)
            return;
        // Asynchronous: the shell's loop never waits for the agent.
        Gio.DBusProxy.new(Gio.DBus.session, Gio.DBusProxyFlags.DO_NOT_AUTO_START,
            this._node.lookup_interface(PAIRING_INTERFACE), this.proxy.g_name_owner, path,
            PAIRING_INTERFACE, this._cancellable, (_source, result) => {
                let pairing;
                try {
                    pairing = Gio.DBusProxy.new_finish(result);
                } catch (e) {
                    if (!e.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                        this._onEvent('failed', false, e.message);
                    return;
                }
                this.pairing = pairing;
                this._watch(pairing, 'g-properties-changed', () => this._onChanged());
                this._watch(pairing, 'g-signal', (_proxy, _sender, name, parameters) => {
                    if (name !== 'Finished' || this.pairing !== pairing)
                        return;
                    const [paired, message] = parameters.deepUnpack();
                    this.pairing = null;
                    this._onEvent('paired', paired, message);
                    this._onChanged();
                });
                this._onChanged();
            });
    }

    _call(method, parameters, then = null) {
        const {Gio} = this._gi;
        if (!this.proxy)
            return;
        this.proxy.call(method, parameters, Gio.DBusCallFlags.NONE, -1, this._cancellable, (proxy, result) => {
            try {
                const reply = proxy.call_finish(result);
                if (then)
                    then(reply);
            } catch (e) {
                if (e.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                    return;
                Gio.DBusError.strip_remote_error(e);
                this._onEvent('failed', false, e.message);
            }
        });
    }

    _watch(object, signal, handler) {
        this._handlers.push([object, object.connect(signal, handler)]);
    }

    // After it nothing calls back: a proxy lives on until it is collected,
    // and a signal then must not reach a menu that is gone.
    destroy() {
        for (const [object, id] of this._handlers)
            object.disconnect(id);
        this._handlers = [];
        this._cancellable.cancel();
        this.proxy = null;
        this.pairing = null;
    }
};
