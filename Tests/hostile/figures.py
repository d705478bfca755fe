# SPDX-License-Identifier: MIT OR Apache-2.0
"""Prints the figures the hostile suite recorded ($HOSTILE_FIGURES, one JSON
line per test) as a Markdown table: genuine handoffs succeeded/attempted
and each victim's peak threads, fds and RSS under each attack."""

import json
import sys


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    print("| attack | handoffs | after | sender thr/fds/RSS MB/CLOSE-WAIT | receiver thr/fds/RSS MB/CLOSE-WAIT | attacker |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        def peaks(name):
            p = r[name]
            return "%d / %d / %.0f / %d%s" % (p["threads"], p["fds"], p["rss_mb"], p.get("close_wait", 0),
                                         " (killed)" if p["killed_for_rss"] else "")
        attacker = " ".join("%s=%s" % kv for kv in r.get("attacker", {}).items() if kv[0] != "attack")
        print("| %s | %d/%d | %s | %s | %s | %s |" % (
            r["attack"], r["succeeded"], r["attempted"], {True: "ok", False: "FAIL"}.get(r.get("after"), "-"),
            peaks("sender"), peaks("receiver"), attacker))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/hostile-figures.jsonl")
