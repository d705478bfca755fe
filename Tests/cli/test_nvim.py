# SPDX-License-Identifier: MIT OR Apache-2.0
"""The Neovim plugin (bridges/nvim, docs/documents.md §8) end to end: two
devices on loopback, each with its own account, agent, runtime and data
folders, and a real `nvim --headless` with the plugin, whose `handoff
session` goes through that device's agent. A opens a file at line 12,
column 5 (in characters, after multibyte ones); B's agent is told the
person chose it (CHOOSE, as a notification click does); B's nvim then
edits that file with the cursor exactly there, A hears it was continued,
and quitting A's nvim withdraws the offer. Also: a place past the end of
the buffer is clamped; nothing is offered for a help buffer (and the
plugin's help is found); `g:handoff_enabled = false` turns it off.

The file is shared: both devices have the same HOME, which is not under
/tmp (a place documents are never described from). Until documents are
mapped between devices the URL travels as it is, the same absolute path on
both sides; once they are, the file maps to the same path under the same
home ("same"), so this test holds either way."""

import json
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

from agent_desktop import wait_for
from cli_support import ROOT, SCRATCH, TOOL, WAIT, Process
from test_agent_e2e import start_plain_agent
from test_cli_agent import LocalClient
from session_support import Session

PLUGIN = ROOT / "bridges" / "nvim"
TYPE = "org.neovim.nvim.edit"
CHOOSE, OK = 17, 13
# Line 12: four two-byte characters before column 5, so a column in bytes
# would land elsewhere.
LINES = [f"line {n}: plain text for the cursor to stand on" for n in range(1, 31)]
LINES[11] = "éééé·columns count characters, not bytes"


def require_nvim():
    if not shutil.which("nvim"):
        pytest.skip("nvim is not installed (scripts/install-deps.sh)")


@pytest.fixture
def home():
    """The home both devices share, outside /tmp (see above)."""
    base = SCRATCH
    base.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="test-nvim-home-", dir=base))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class Editor:
    """One device's nvim, with the plugin from the repository, driven and
    read through its server socket."""

    def __init__(self, root, device, home, own_port, peer_port, procs):
        self.root = root
        self.device = device
        root.mkdir(mode=0o700)  # the agent's socket folder
        run = root / "run"
        run.mkdir(mode=0o700)
        empty = root / "no-system-data"
        empty.mkdir()
        self.agent_socket = root / "agent.sock"
        self.env = dict(device.env, HOME=str(home), XDG_DATA_HOME=str(root / "data"), XDG_STATE_HOME=str(root / "state"),
                        XDG_CACHE_HOME=str(root / "cache"), XDG_RUNTIME_DIR=str(run), XDG_DATA_DIRS=str(empty),
                        HANDOFF_AGENT_SOCKET=str(self.agent_socket))
        start_plain_agent(device, self.agent_socket, own_port, peer_port, env=self.env)
        self.server = root / "nvim.sock"
        self.procs = procs

    def start(self, *files, enabled=True):
        init = self.root / "init.lua"
        init.write_text(f"vim.opt.runtimepath:prepend({json.dumps(str(PLUGIN))})\n"
                        f"vim.g.handoff_program = {json.dumps(str(TOOL))}\n"
                        "vim.o.updatetime = 100\n"
                        + ("" if enabled else "vim.g.handoff_enabled = false\n"))
        self.nvim = Process(["nvim", "--headless", "-n", "-i", "NONE", "-u", str(init), "--listen", str(self.server),
                             *map(str, files)], self.env)
        self.procs.append(self.nvim)
        wait_for(lambda: self.server.exists(), "nvim's server socket")

    def expr(self, expression):
        """`expression` evaluated in the running nvim (nvim 0.7's client
        prints the result on stderr)."""
        result = subprocess.run(["nvim", "-u", "NONE", "-i", "NONE", "-n", "--headless", "--server", str(self.server),
                                 "--remote-expr", expression], capture_output=True, text=True, timeout=WAIT,
                                env=self.env)
        assert result.returncode == 0, result
        return result.stdout + result.stderr

    def state(self):
        return json.loads(self.expr("luaeval('vim.json.encode(require(\"handoff\").state())')"))

    def cursor(self):
        """The current buffer's file and the cursor's line and column (in characters, from 1)."""
        return json.loads(self.expr("json_encode([expand('%:p'), line('.'), charcol('.')])"))

    def quit(self):
        subprocess.run(["nvim", "-u", "NONE", "-i", "NONE", "-n", "--headless", "--server", str(self.server),
                        "--remote-send", "<C-\\><C-N>:qa!<CR>"], capture_output=True, timeout=WAIT, env=self.env)
        assert self.nvim.wait() == 0

    def close(self):
        """As the person leaves it (its session withdraws and ends), when
        a test did not."""
        nvim = getattr(self, "nvim", None)
        if nvim and nvim.proc.poll() is None:
            try:
                self.quit()
            except (AssertionError, subprocess.TimeoutExpired):
                nvim.kill()


def start_session(device, *args, env):
    """`handoff session` as org.neovim.nvim (Tests/cli/session_support.py's, another app)."""
    session = Session(device, *args, env=env, app="org.neovim.nvim")
    session.next("ready")
    return session


@pytest.fixture
def editors(pair, ports, tmp_path, home, procs):
    require_nvim()
    a, b = pair
    editors = (Editor(tmp_path / "editor-a", a, home, ports[0], ports[1], procs),
               Editor(tmp_path / "editor-b", b, home, ports[1], ports[0], procs))
    yield editors
    for editor in editors:
        editor.close()


def offered_at(editor, path, line, column):
    """The plugin sent that place and its session acknowledged every publish."""
    def probe():
        state = editor.state()
        offering = state.get("offering") or {}
        if (offering.get("path"), offering.get("line"), offering.get("column")) != (str(path), line, column):
            return None
        return state if state.get("published") and state["acknowledged"] == state["sent"] else None
    return wait_for(probe, f"{editor.device.name}'s nvim offering {path}:{line}:{column}")


def test_a_file_open_on_one_device_continues_in_the_other_devices_nvim_at_the_same_place(editors, home):
    a, b = editors
    document = home / "notes" / "plan B.txt"
    document.parent.mkdir()
    document.write_text("\n".join(LINES) + "\n")
    a.start(document, "+call setcursorcharpos(12, 5)")
    b.start()

    state = offered_at(a, document, 12, 5)
    assert state["ready"]["app"] == "org.neovim.nvim" and state["ready"]["via"] == "agent", state
    assert state["published"]["type"] == TYPE and state["published"]["title"] == "plan B.txt"
    activity = state["published"]["id"]
    wait_for(lambda: any(o["id"] == activity for o in b.state()["offered"]), "B's nvim told of A's file")
    assert b.cursor()[0] == "", "B starts with no file"

    observer = LocalClient(b.agent_socket)
    observer.hello()
    kind, body = observer.request(CHOOSE, {"activityID": uuid.UUID(activity).bytes})
    assert kind == OK, body
    observer.close()
    wait_for(lambda: b.cursor() == [str(document), 12, 5], f"B's nvim at {document}:12:5; it has {b.cursor()}")
    restored = b.state()["restored"]
    assert restored["device"] == "Device A" and restored["id"] == activity, restored
    wait_for(lambda: (a.state().get("continued") or {}).get("id") == activity, "A hears it was continued")
    # B offers what it now edits, where it stands.
    offered_at(b, document, 12, 5)

    # Leaving A's nvim withdraws its offer (VimLeavePre, then the end of the session's input).
    a.quit()
    wait_for(lambda: not any(o["id"] == activity for o in b.state()["offered"]), "A's offer withdrawn on B")
    assert b.state()["errors"] == [] and a.nvim.proc.returncode == 0
    b.quit()


def test_a_place_past_the_end_of_the_buffer_is_clamped(editors, home):
    """What another device's app sends is clamped to the buffer: a session
    on A, as the nvim app, offers the file at line 500, column 99."""
    a, b = editors
    document = home / "notes" / "short notes.txt"
    document.parent.mkdir()
    document.write_text("short\nlines\n")
    b.start()
    sender = start_session(a.device, "--type", TYPE, "--team", "LIBHANDOFF", env=a.env)
    url = "file://" + str(document).replace(" ", "%20")
    sender.send({"publish": {"type": TYPE, "title": document.name, "user_info": {
        "NSUserActivityDocumentURLKey": {"$url": url}, "line": 500, "column": 99}}})
    activity = sender.next("published")["id"]
    wait_for(lambda: any(o["id"] == activity for o in b.state()["offered"]), "B's nvim told of A's file")
    observer = LocalClient(b.agent_socket)
    observer.hello()
    kind, body = observer.request(CHOOSE, {"activityID": uuid.UUID(activity).bytes})
    assert kind == OK, body
    observer.close()
    wait_for(lambda: b.cursor() == [str(document), 2, 5], f"B's nvim on the last line's last character: {b.cursor()}")
    assert sender.next("continued")["id"] == activity
    sender.close_input()
    assert sender.wait() == 0
    b.quit()


def test_a_help_buffer_is_not_offered_and_the_plugin_can_be_turned_off(editors, home):
    a, b = editors
    a.start("+help handoff")
    wait_for(lambda: a.state().get("ready"), "A's session ready")
    assert a.expr("&buftype") == "help" and a.expr("expand('%:t')") == "handoff.txt"  # its help is found
    state = a.state()
    assert state["sent"] == 0 and "published" not in state, state

    b.start(enabled=False)
    state = b.state()
    assert state["running"] is False and "ready" not in state
    assert "off" in b.expr("execute('HandoffStatus')")
    a.quit()
    b.quit()
