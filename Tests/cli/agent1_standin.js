// SPDX-License-Identifier: MIT OR Apache-2.0
// A stand-in for the agent's org.libhandoff.Agent1 (docs/agent.md §15) on
// the session bus, for Tests/cli/test_gnome_shell_extension.py: it lets the
// extension's menu be driven with chosen properties where the agent under
// test does not serve the API. Never instead of the real agent's test.
//
//   gjs Tests/cli/agent1_standin.js STATE.json LOG.jsonl INTERFACES.xml
//
// STATE.json: {"State": "running", "Offers": [{...}], "Devices": [...],
// "Recent": [...]}, read again on the test's call
// org.libhandoff.Test.Reload() (no signals to race). Each method call is
// one JSON line in LOG.jsonl ({"method", "args"}); Pause/Resume change
// State; Pair is refused (the real agent's test drives pairing). The
// interfaces are the agent's own text (dist/dbus/org.libhandoff.Agent1.xml).
// Prints "ready" once it owns the name.

const {Gio, GLib} = imports.gi;

const [statePath, logPath, interfacesPath] = ARGV;
const read = path => new TextDecoder().decode(GLib.file_get_contents(path)[1]);
const TEST_XML = `<node>
  <interface name="org.libhandoff.Test">
    <method name="Reload"/>
  </interface>
</node>`;
const TIMES = new Set(['received', 'last-seen', 'when']);

function dict(object) {
    const out = {};
    for (const [key, value] of Object.entries(object)) {
        if (typeof value === 'boolean')
            out[key] = new GLib.Variant('b', value);
        else if (typeof value === 'number')
            out[key] = new GLib.Variant(TIMES.has(key) ? 't' : 'u', value);
        else
            out[key] = new GLib.Variant('s', String(value));
    }
    return out;
}

let state = {};
function load() {
    state = JSON.parse(read(statePath));
}

function property(name) {
    switch (name) {
    case 'Version': return new GLib.Variant('u', 1);
    case 'State': return new GLib.Variant('s', state.State || 'running');
    case 'ThisDevice': return new GLib.Variant('a{sv}', dict({id: '0'.repeat(32), name: 'Test', role: 'full'}));
    default: return new GLib.Variant('aa{sv}', (state[name] || []).map(dict));
    }
}

function log(method, args) {
    const stream = Gio.File.new_for_path(logPath).append_to(Gio.FileCreateFlags.NONE, null);
    stream.write_all(new TextEncoder().encode(`${JSON.stringify({method, args})}\n`), null);
    stream.close(null);
}

let connection = null;
function changed(names) {
    const values = {};
    for (const name of names)
        values[name] = property(name);
    connection.emit_signal(null, '/org/libhandoff/Agent', 'org.freedesktop.DBus.Properties', 'PropertiesChanged',
        new GLib.Variant('(sa{sv}as)', ['org.libhandoff.Agent1', values, []]));
}

const node = Gio.DBusNodeInfo.new_for_xml(read(interfacesPath));
const testNode = Gio.DBusNodeInfo.new_for_xml(TEST_XML);
const loop = new GLib.MainLoop(null, false);
load();
Gio.bus_own_name(Gio.BusType.SESSION, 'org.libhandoff.Agent', Gio.BusNameOwnerFlags.DO_NOT_QUEUE,
    bus => {
        connection = bus;
        bus.register_object('/org/libhandoff/Agent', node.lookup_interface('org.libhandoff.Agent1'),
            (conn, sender, path, iface, method, parameters, invocation) => {
                log(method, parameters.recursiveUnpack());
                if (method === 'Pair') {
                    invocation.return_dbus_error('org.libhandoff.Error.Failed', 'the stand-in does not pair');
                    return;
                }
                if (method === 'Pause' || method === 'Resume') {
                    state.State = method === 'Pause' ? 'paused' : 'running';
                    changed(['State']);
                }
                invocation.return_value(null);
                if (method === 'Continue') {
                    bus.emit_signal(null, path, iface, 'Continued',
                        new GLib.Variant('(sbs)', [parameters.deepUnpack()[0], true, 'launched']));
                }
            },
            (conn, sender, path, iface, name) => property(name), null);
        bus.register_object('/org/libhandoff/Agent', testNode.lookup_interface('org.libhandoff.Test'),
            (conn, sender, path, iface, method, parameters, invocation) => {
                load();
                changed(['State', 'Offers', 'Devices', 'Recent']);
                invocation.return_value(null);
            }, null, null);
    },
    () => print('ready'),
    () => { print('lost'); loop.quit(); });
loop.run();
