# SPDX-License-Identifier: MIT OR Apache-2.0
"""The MPRIS bridge end to end (docs/mpris.md) with a real player: two
devices on loopback, each with its own private session bus, HOME, agent,
`handoff mpris-bridge` and mpv (Debian's mpv-mpris plugin). A plays a WAV
of silence under its home; B has the same file under its own home and an
idle mpv. B sees the offer (`handoff nearby --json` through its agent),
the test continues it through B's agent (CHOOSE, as a notification click
does), and B's mpv opens B's copy at A's position (extrapolated) while A's
mpv pauses. Also: the agent starts the bridge by its desktop entry to
continue; a file outside home is not offered, and doctor says why; SIGTERM
withdraws the offer. Run alone: about 10 s."""

import json
import os
import re
import signal
import time
import uuid

import pytest

from agent_desktop import exec_quoted, wait_for
from cli_support import ROOT, TOOL
from mpris_support import MediaDevice, require_mpv, silence
from test_agent_e2e import start_plain_agent
from test_cli_agent import LocalClient

TYPE = "org.libhandoff.media.playing"
CHOOSE, OK = 17, 13
# The extrapolated position, against where A's track would be had it not
# paused: the measured error is printed; a second is generous.
TOLERANCE = 1.0


def bridge_event(bridge, name, check=lambda event: True, **fields):
    def find():
        for line in list(bridge.stderr):
            if line.startswith("{"):
                event = json.loads(line)
                if event.get("event") == name and all(event.get(k) == v for k, v in fields.items()) and check(event):
                    return event
        return None
    return wait_for(find, f"the bridge's {name} {fields}; its log: {bridge.stderr}")


@pytest.fixture
def media(pair, ports, tmp_path, procs):
    require_mpv()
    a, b = pair
    devices = MediaDevice(tmp_path / "a", a, procs), MediaDevice(tmp_path / "b", b, procs)
    for device, (own, peer) in zip(devices, (ports, ports[::-1])):
        device.agent = start_plain_agent(device.device, device.socket, own, peer, env=device.env)
    return devices


def start_bridge(media_device):
    bridge = media_device.device.spawn("mpris-bridge", "--bus", media_device.bus, env=media_device.env)
    bridge_event(bridge, "started")
    return bridge


def nearby(media_device):
    """B's view, through its agent: the first media activity it hears of."""
    result = media_device.device.run("--json", "nearby", "--agent", "--type", TYPE, "--once", "--timeout", "20",
                                     env=media_device.env)
    assert result.code == 0, (result.out, result.err)
    events = [json.loads(line) for line in result.out.splitlines() if line.startswith("{")]
    return next(e for e in events if e.get("type") == TYPE)


def test_a_playing_track_continues_on_the_other_device_at_its_position_and_pauses_here(media):
    a, b = media
    track = silence(a.home / "Music" / "quiet piece.wav")
    silence(b.home / "Music" / "quiet piece.wav")
    a.mpv(track)
    wait_for(lambda: a.get("PlaybackStatus") == "Playing", "A's mpv plays")
    b.mpv()
    bridge_a, bridge_b = start_bridge(a), start_bridge(b)

    bridge_event(bridge_a, "offered")
    # Let it play a while, so the position is not near 0 (and mpv's start,
    # which may flicker through Stopped, is over).
    wait_for(lambda: a.position() > 3, "A's track past 3 s")
    offered = [json.loads(l) for l in list(bridge_a.stderr) if '"event":"offered"' in l][-1]
    assert offered["title"] == "quiet piece.wav", offered
    seen = nearby(b)
    assert seen["title"] == "quiet piece.wav" and seen["id"].upper() == offered["id"].upper(), (seen, offered)
    assert a.status_file()["state"] == "offered"
    observer = LocalClient(b.socket)
    observer.hello()
    kind, body = observer.request(CHOOSE, {"activityID": uuid.UUID(seen["id"]).bytes})
    assert kind == OK, body

    continued = bridge_event(bridge_b, "continued")
    paused = bridge_event(bridge_a, "paused")
    wait_for(lambda: a.get("PlaybackStatus") == "Paused", "A's mpv paused")
    a_position = a.position()
    metadata = b.get("Metadata")
    assert metadata["xesam:url"]["data"] == f"file://{b.home}/Music/quiet%20piece.wav", metadata
    before = time.time()
    b_position = b.position()
    read_at = (before + time.time()) / 2  # busctl's own time is not B's lag
    # Where A's track would be then had it played on (the bridge's `at`: when
    # its Pause was answered; both devices share this machine's clock).
    expected = a_position + (read_at - paused["at"])
    error = b_position - expected
    print(f"position error: {error:+.3f} s (B at {b_position:.3f} s, A paused at {a_position:.3f} s,"
          f" B's seek target {continued['position']:.3f} s)")
    assert abs(error) < TOLERANCE, (b_position, expected)
    # It plays on (mpv-mpris may keep saying Stopped after an idle start).
    wait_for(lambda: b.position() > b_position + 0.2, "B's track moves on")
    observer.close()


def test_a_file_outside_home_is_not_offered_and_doctor_says_why(media, tmp_path):
    a, _ = media
    outside = silence(tmp_path / "elsewhere" / "outside.wav")
    a.mpv(outside)
    bridge = start_bridge(a)
    # (Before mpv's properties arrive it says "nothing is playing".)
    refused = bridge_event(bridge, "not-offered", lambda e: "home" in e["reason"])
    assert refused["reason"] == f"mpv: the file {outside} is not under the home directory", refused
    status = a.status_file()
    assert status["state"] == "not-offered" and str(outside) in status["reason"], status
    assert not [l for l in bridge.stderr if '"event":"offered"' in l], bridge.stderr

    doctor = a.device.run("--json", "doctor", "--listen", "0", env=a.env)
    findings = [f for f in json.loads(doctor.out)["findings"] if f["check"] == "mpris"]
    assert findings and findings[0]["status"] == "warn" and str(outside) in findings[0]["what"], findings


def test_the_agent_starts_the_bridge_by_its_desktop_entry_to_continue(media):
    """B runs no bridge: its agent launches the installed entry
    (dist/xdg/org.libhandoff.media.desktop, Exec pointed at this build),
    which continues the track in B's mpv. The launched bridge is not our
    child: killed by the pid the agent logs."""
    a, b = media
    track = silence(a.home / "Music" / "other.wav")
    silence(b.home / "Music" / "other.wav")
    entry = (ROOT / "dist" / "xdg" / "org.libhandoff.media.desktop").read_text()
    entry = re.sub(r"(?m)^Exec=.*$", f"Exec={exec_quoted(str(TOOL))} mpris-bridge", entry)
    entry = re.sub(r"(?m)^TryExec=.*$", f"TryExec={TOOL}", entry)
    (b.desktop.data / "applications" / "org.libhandoff.media.desktop").write_text(entry)
    a.mpv(track)
    b.mpv()
    bridge_a = start_bridge(a)
    bridge_event(bridge_a, "offered")
    wait_for(lambda: a.position() > 1, "A's track past 1 s")
    offered = [json.loads(l) for l in list(bridge_a.stderr) if '"event":"offered"' in l][-1]
    launched = []
    try:
        observer = LocalClient(b.socket)
        observer.hello()
        kind, body = observer.request(CHOOSE, {"activityID": uuid.UUID(offered["id"]).bytes})
        assert kind == OK, body
        log = b.agent.stderr
        line = wait_for(lambda: next((l for l in list(log) if '"event":"launch"' in l), None), f"a launch; {log}")
        launched = [int(p) for p in re.findall(r"\(pid (\d+)", line)]
        assert launched, line
        wait_for(lambda: b.get("Metadata").get("xesam:url", {}).get("data") == f"file://{b.home}/Music/other.wav",
                 "B's mpv opened B's copy")
        wait_for(lambda: b.position() > 1, "B's mpv near A's position")
        bridge_event(bridge_a, "paused")
        observer.close()
    finally:
        for pid in launched:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_sigterm_withdraws_the_offer_and_ends_the_bridge_with_status_0(media):
    a, b = media
    a.mpv(silence(a.home / "Music" / "short.wav"))
    bridge = start_bridge(a)
    offered = bridge_event(bridge, "offered")
    assert nearby(b)["id"].upper() == offered["id"].upper()
    bridge.signal(signal.SIGTERM)
    assert bridge.wait() == 0
    bridge_event(bridge, "stopped")
    assert a.status_file() == {"state": "not-offered", "reason": "the bridge stopped"}
