# SPDX-License-Identifier: MIT OR Apache-2.0
"""What went over a private bus, as a test reads it afterwards:
dbus-monitor (the private bus's policy allows eavesdropping) writing to a
log, and the method calls and signals found there by interface and
member, each with its sender and argument lines. For a desktop that is
not ours (Plasma): the test sees what it sent, not what it meant to."""

import subprocess
from pathlib import Path

from agent_desktop import OwnedProcess, wait_for


class BusCalls:
    def __init__(self, address, procs, log):
        self.log = Path(log)
        self._out = open(self.log, "w")
        self.proc = subprocess.Popen(["dbus-monitor", "--address", address], stdout=self._out,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        procs.append(OwnedProcess(self.proc))
        # It prints its own NameAcquired first: from then on it hears all.
        wait_for(lambda: "NameAcquired" in self.log.read_text(), "dbus-monitor listening")

    def heard(self, kind, interface, member):
        """Each `kind` ("method call" or "signal") of interface.member:
        {"sender": …, "destination": …, "args": [argument lines]}, in order."""
        found, current = [], None
        for line in self.log.read_text().splitlines():
            if line.startswith(("signal ", "method ", "error ")):
                current = None
                if line.startswith(kind + " ") and f"interface={interface}; member={member}" in line:
                    fields = dict(f.split("=", 1) for f in line.replace(";", "").split() if "=" in f)
                    current = {"sender": fields.get("sender"), "destination": fields.get("destination"), "args": []}
                    found.append(current)
            elif current is not None:
                current["args"].append(line.strip())
        return found

    def strings(self, kind, interface, member):
        """The string arguments of each such call or signal."""
        return [[a.split(" ", 1)[1].strip('"') for a in h["args"] if a.startswith("string ")]
                for h in self.heard(kind, interface, member)]
