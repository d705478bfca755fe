# SPDX-License-Identifier: MIT OR Apache-2.0
"""The browser bridge's latency (docs/browser.md), next to an app's in the
same run: two devices on loopback, each with its agent (a private session
bus and the recording notification server of the tests) and a
`handoff browser-host` spoken to as a browser speaks to it.

    python3 bench/bridge_latency.py [--rounds 20] [--tool build/bin/handoff]

  tab → notice   A's host is told a new page is in front (`current`); timed
                 to the notification on B that names it (the agent posts it
                 when it heard the advert and verified A)
  app → notice   the raw baseline: `handoff publish --agent` on A (an app's
                 activity with a web page, through A's agent, process start
                 excluded: timed from its "publishing" line) to B's
                 notification
  click → open   the person clicks Continue on B; timed to B's host writing
                 `open` with the page: B's agent chooses the host, the host
                 fetches the activity from A over the channel, restores it
                 and tells the extension (the browser's own tab opening is
                 not in it)

Every process started here is stopped; nothing leaves loopback.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "Tests" / "cli"), str(ROOT / "Tests" / "support")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--tool", default=str(ROOT / "build" / "bin" / "handoff"))
    args = parser.parse_args()
    os.environ["HANDOFF_TOOL"] = args.tool
    import cli_support
    from agent_desktop import Desktop, wait_for
    from native_host import BrowserHost
    from test_agent_e2e import start_agent

    procs, hosts = [], []
    with tempfile.TemporaryDirectory(prefix="handoff-bridge-bench-") as root:
        root = Path(root)
        try:
            a, b = cli_support.pair_of_devices(root, procs)
            ports = cli_support.free_port(), cli_support.free_port()
            desktops = [Desktop(root / "desktop-a", procs), Desktop(root / "desktop-b", procs)]
            sockets = [root / "run-a" / "agent.sock", root / "run-b" / "agent.sock"]
            start_agent(a, desktops[0], sockets[0], ports[0], ports[1])
            start_agent(b, desktops[1], sockets[1], ports[1], ports[0])
            env_a = desktops[0].env(a.env, sockets[0])
            hosts = [BrowserHost(a, env_a), BrowserHost(b, desktops[1].env(b.env, sockets[1]))]
            host_a, host_b = hosts
            host_b.send({"type": "hello", "browser": "bench", "version": 1})
            host_b.next("status")

            def notified(title):
                for record in desktops[1].notifications():
                    if record.get("call") == "Notify" and record.get("summary") == title:
                        return record
                return None

            def closed(record):
                return desktops[1].closed(record["id"])

            tab, app, click = [], [], []
            for i in range(args.rounds):
                # The bridge: a new page in front on A.
                title = f"Tab {i}"
                start = time.monotonic()
                host_a.send({"type": "current", "url": f"https://example.org/page/{i}", "title": title})
                shown = wait_for(lambda: notified(title), f"B's notice of {title}")
                tab.append(time.monotonic() - start)
                start = time.monotonic()
                desktops[1].click(shown["id"])
                host_b.next("open", url=f"https://example.org/page/{i}")
                click.append(time.monotonic() - start)
                host_a.send({"type": "resign"})
                wait_for(lambda: closed(shown), "B's notice closed")

                # The baseline: an app's activity through A's agent.
                title = f"App {i}"
                publisher = a.spawn("--json", "publish", "--agent", "--type", "com.example.bench.view",
                                    "--title", title, "--url", f"https://example.org/app/{i}", env=env_a)
                publisher.event("publishing")
                start = time.monotonic()
                shown = wait_for(lambda: notified(title), f"B's notice of {title}")
                app.append(time.monotonic() - start)
                publisher.kill()
                wait_for(lambda: closed(shown), "B's notice closed")

            def row(name, values):
                ms = sorted(v * 1000 for v in values)
                p90 = ms[min(len(ms) - 1, int(len(ms) * 0.9))]
                print(f"  {name:<14} p50 {statistics.median(ms):7.1f} ms   p90 {p90:7.1f} ms   ({len(ms)} rounds)")

            print("browser bridge latency (loopback, two agents; docs/browser.md)")
            row("app → notice", app)
            row("tab → notice", tab)
            row("click → open", click)
        finally:
            for host in hosts:
                host.kill()
            for proc in procs:
                proc.kill()


if __name__ == "__main__":
    main()
