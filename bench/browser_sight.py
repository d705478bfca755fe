# SPDX-License-Identifier: MIT OR Apache-2.0
"""The browser bridge with real browsers (issue 25): Debian's Firefox ESR
and Chromium with the extension (bridges/browser/extension) and the real
`handoff browser-host`, two devices' agents on loopback, the test bed of
Tests/cli/browser_support.py (Xvfb, openbox).

    python3 bench/browser_sight.py [--rounds 5] [--tool build/bin/handoff]

  focus → notice   A's browser window takes focus (xdotool), timed to the
                   notification on B naming its page: the window manager,
                   the browser's focus event, the extension, the host, both
                   agents and the beacon in between
  click → tab      the person clicks Continue on A for a page B offers,
                   timed to the page showing in a tab of A's browser (read
                   over the browser's own remote protocol, which adds its
                   polling: an upper bound)

A browser that is not installed is skipped (scripts/install-deps.sh
installs both). Every process started here is stopped: each browser on a
private bus that activates nothing, and before its folder is removed,
whatever still runs with this run's tag is ended and any mount under the
folder undone (Tests/support/leftovers.py), and named on stderr.
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "Tests" / "cli"), str(ROOT / "Tests" / "support")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--browser", help="firefox-esr or chromium only")
    parser.add_argument("--tool", default=str(ROOT / "build" / "bin" / "handoff"))
    args = parser.parse_args()
    args.tool = os.path.abspath(args.tool)  # the browser starts the host elsewhere
    os.environ["HANDOFF_TOOL"] = args.tool
    import cli_support
    import leftovers
    token = leftovers.tag_run()
    from agent_desktop import Desktop
    from browser_support import Chromium, Display, Firefox, Pages, RealHost, wait_for
    from test_browser_handoff import agent_of

    print("the browser bridge with real browsers (loopback, two agents; docs/browser.md)")
    only = [k for k in (Firefox, Chromium) if not args.browser or k.BINARY == args.browser]
    for kind in only:
        if not shutil.which(kind.BINARY):
            print(f"  {kind.BINARY}: not installed, skipped")
            continue
        procs = []
        with tempfile.TemporaryDirectory(prefix="handoff-browser-bench-") as root:
            root = Path(root)
            display = pages = browser = None
            try:
                a, b = cli_support.pair_of_devices(root, procs)
                ports = cli_support.free_port(), cli_support.free_port()
                desktop_a, desktop_b = Desktop(root / "desktop-a", procs), Desktop(root / "desktop-b", procs)
                agent_of(a, desktop_a, root, ports[0], ports[1], "a")
                _, env_b, _ = agent_of(b, desktop_b, root, ports[1], ports[0], "b")
                display, pages = Display(root), Pages()
                host = RealHost(root, Path(args.tool), desktop_a.env(a.env, root / "a-run" / "agent.sock"))
                browser = (Firefox(root, display, host, cli_support.free_port()) if kind is Firefox
                           else Chromium(root, display, host))
                focus, click = [], []
                for i in range(args.rounds):
                    title = f"Bench page {i}"
                    browser.open(pages.url(title))
                    display.focus_window_named(title, kind.TITLE_SUFFIX)
                    display.focus_elsewhere()
                    time.sleep(0.5)
                    start = time.monotonic()
                    display.focus_window_named(title, kind.TITLE_SUFFIX)
                    wait_for(lambda: next((r for r in desktop_b.notifications() if r.get("call") == "Notify"
                                           and r.get("summary") == title), None), f"B's notice of {title}")
                    focus.append(time.monotonic() - start)

                    display.focus_elsewhere()
                    page = pages.url(f"From B {i}")
                    sender = b.spawn("--json", "publish", "--agent", "--type", "NSUserActivityTypeBrowsingWeb",
                                     "--team", "LIBHANDOFF", "--title", f"From B {i}", "--url", page, env=env_b)
                    sender.event("publishing")
                    shown = desktop_a.notified(f"From B {i}")
                    start = time.monotonic()
                    desktop_a.click(shown["id"])
                    wait_for(lambda: page in browser.tab_urls(), "the page from B in a tab", step=0.005)
                    click.append(time.monotonic() - start)
                    sender.kill()

                def row(name, values):
                    ms = sorted(v * 1000 for v in values)
                    print(f"  {kind.BINARY:<12} {name:<15} p50 {statistics.median(ms):7.1f} ms   max {ms[-1]:7.1f} ms"
                          f"   ({len(ms)} rounds)")
                row("focus → notice", focus)
                row("click → tab", click)
            finally:
                if browser:
                    browser.close()
                if pages:
                    pages.close()
                if display:
                    display.close()
                for proc in procs:
                    proc.kill()
                left, mounts = leftovers.clean(leftovers.RUN_TAG, token, [root])
                if left or mounts:
                    print(f"  {kind.BINARY}: ended what was left: processes {left}, mounts {mounts}", file=sys.stderr)


if __name__ == "__main__":
    main()
