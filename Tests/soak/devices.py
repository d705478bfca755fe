# SPDX-License-Identifier: MIT OR Apache-2.0
"""Scale: many devices of one account on one network, all seeing each other.

    python3 Tests/soak/devices.py [--devices 16] [--window 10]

Each device is a network namespace (hosoak-<pid>-dNN, created here and
always deleted; root only) on one Linux bridge, with an IPv4 address, a
`handoff agent` on multicast (the default beacon port, channel on any
address), and one app (build/bin/peer --send --agent) offering an activity
of a type every device's app declares (the first device's a type of its
own). Each app is told of the others' activities: the time from the apps'
start until each has heard of all the others is what a device needs to see
the rest. Then, with all running, a receiver app on the second device
continues what the first offers (the only app of the first's type), and
the first is told, no other. Over --window seconds after that, the first device's
beacons per second (its namespace's UDP datagrams in and out) and its
agent's CPU. Exit status 1 when a device did not see all the others, or
the handoff failed.
"""

import argparse
import os
import shutil
import statistics
import sys
import time

import soak
import netns  # Tests/support (on the path soak sets)

TYPE = "com.example.soak.device"
FIRST = "com.example.soak.first"  # the first device's activity
SEE_WITHIN = 120  # s for every device to see every other


def run(count, window):
    if not shutil.which("ip"):
        raise soak.Failed("`ip` is not installed (scripts/install-deps.sh installs it)")
    scratch = soak.Scratch("handoff-devices-")
    started = []
    try:
        with netns.Namespaces("hosoak-") as space:
            names = ["d%02d" % i for i in range(1, count + 1)]
            hosts = space.bridged(names)
            subnet = netns.subnet(221)
            for number, ns in enumerate(hosts.values(), start=1):
                netns.address(ns, "%s.%d/24" % (subnet, number))
            netns.wait_up(hosts.values())
            devices = [soak.Device(scratch.path, name, hosts[name]) for name in names]
            for device in devices:
                started.append(device.start_agent())

            t0 = time.monotonic()
            apps = [device.app("--send", "--type", FIRST if device is devices[0] else TYPE, "--declare", TYPE,
                               "--declare", FIRST, "--title", device.name, "--device-name", device.name)
                    for device in devices]
            started += apps
            ids = {}
            for device, app in zip(devices, apps):
                ids[device.name] = soak.fields(app.wait_for("offering", 60))["id"]
            heard = {device.name: {} for device in devices}  # name -> {activity id: seconds}
            deadline = t0 + SEE_WITHIN
            others = count - 1
            while any(len(h) < others for h in heard.values()):
                if time.monotonic() > deadline:
                    short = {name: others - len(h) for name, h in heard.items() if len(h) < others}
                    raise soak.Failed("devices still missing others after %d s: %s" % (SEE_WITHIN, short))
                for device, app in zip(devices, apps):
                    now = time.monotonic() - t0
                    for line in soak.lines(app):
                        if line.startswith("available"):
                            heard[device.name].setdefault(soak.fields(line)["id"], now)
                time.sleep(0.02)
            for device in devices:
                mine = set(heard[device.name])
                expected = {i for name, i in ids.items() if name != device.name}
                if mine != expected:
                    raise soak.Failed("%s heard of %s, expected the others' %s" % (device.name, mine, expected))
            all_seen = [max(h.values()) for h in heard.values()]

            # One handoff among them, all running: device 2 continues device 1's.
            first, second = devices[0], devices[1]
            t1 = time.monotonic()
            receiver = second.app("--receive", "--type", FIRST, "--auto-continue")
            started.append(receiver)
            continued = soak.fields(receiver.wait_for("continued", 60))
            receiver.wait_for("restored", 60)
            apps[0].wait_for("was-continued", 60)
            handoff = time.monotonic() - t1
            if continued["id"] != ids[first.name]:
                raise soak.Failed("%s continued %s, not %s's %s" % (second.name, continued["id"], first.name,
                                                                    ids[first.name]))
            time.sleep(1)
            told = [app for app in apps if any(line.startswith("was-continued") for line in app.lines + soak.lines(app))]
            if told != [apps[0]]:
                raise soak.Failed("%d senders were told they were continued (1 expected)" % len(told))

            # The first device's beacons and its agent's CPU, all 16 running.
            pid = first.agent.pid
            udp0, held0, w0 = soak.udp_datagrams(pid), soak.held(pid), time.monotonic()
            time.sleep(window)
            udp1, held1, w1 = soak.udp_datagrams(pid), soak.held(pid), time.monotonic()
            seconds = w1 - w0

            print("scale: %d devices of one account, each a network namespace on one bridge, an agent "
                  "and an app offering; %s" % (count, soak.loaded()))
            print("  every device heard of the %d others: first %.2f s, median %.2f s, last %.2f s after "
                  "the apps started" % (others, min(all_seen), statistics.median(all_seen), max(all_seen)))
            print("  a handoff among them: %s continued %s's activity, restored it, and %s was told so "
                  "%.2f s after the receiver started" % (second.name, first.name, first.name, handoff))
            print("  %s over %.0f s, all %d running: %.1f beacons/s received, %.1f/s sent (UDP datagrams "
                  "of its namespace); its agent %.2f%% of one CPU, %d KiB RSS, %d threads, %d fds"
                  % (first.name, seconds, count, (udp1[0] - udp0[0]) / seconds, (udp1[1] - udp0[1]) / seconds,
                     (held1["cpu"] - held0["cpu"]) / seconds * 100, held1["rss"], held1["threads"], held1["fds"]))
            soak.stop_all(started)
        return True
    finally:
        soak.stop_all(started)
        scratch.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", type=int, default=16)
    parser.add_argument("--window", type=float, default=10)
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("scale: devices: skipped (network namespaces need root)")
        return 0
    return soak.outcome("scale: devices", lambda: run(args.devices, args.window))


if __name__ == "__main__":
    sys.exit(main())
