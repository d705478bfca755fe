# SPDX-License-Identifier: MIT OR Apache-2.0
"""The agent's systemd user units (dist/systemd, docs/agent.md §7) and
their installation: what the units say, that `make install` puts them in
the user unit directory with ExecStart naming the installed command, that
systemd itself accepts them (`systemd-analyze --user verify`), and that
`make uninstall` takes them away again. Every prefix is a temporary folder.
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "dist" / "systemd"
SHELL_SYNTAX = set("|;&$`<>*?()\"'\\")


def make(*args):
    # A clean environment for the inner make: no jobserver of an outer one.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    return subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), *args], capture_output=True, text=True,
                          env=env, timeout=1800)


def unit(path):
    """A unit file as {section: {key: [values]}} (keys may repeat)."""
    sections, current = {}, None
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def verify(unit_dir, prefix):
    """systemd's own check of the installed units. It needs a runtime
    directory (for %t) and fails when ExecStart's program is missing."""
    runtime = Path(tempfile.mkdtemp(prefix="handoff-runtime-"))
    try:
        os.chmod(runtime, 0o700)
        env = dict(os.environ, XDG_RUNTIME_DIR=str(runtime))
        return subprocess.run(["systemd-analyze", "--user", "verify",
                               *(str(unit_dir / name) for name in ("handoff-agent.socket", "handoff-agent.service",
                                                                    "handoff-mpris.service", "handoff-documents.service"))],
                              capture_output=True, text=True, env=env, timeout=120)
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


needs_systemd_analyze = pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                                           reason="systemd-analyze is not installed (package systemd)")


def test_the_socket_is_a_private_sequential_packet_socket_in_the_runtime_directory():
    socket = unit(UNITS / "handoff-agent.socket")["Socket"]
    assert socket["ListenSequentialPacket"] == ["%t/handoff/agent.sock"]
    assert socket["SocketMode"] == ["0600"]
    assert socket["DirectoryMode"] == ["0700"]
    # The name the agent looks for in LISTEN_FDNAMES (ActivatedSocket.agentSocketName).
    assert socket["FileDescriptorName"] == ["handoff-agent.socket"]
    assert "Accept" not in socket  # one agent for every connection, not one per connection


def test_the_service_runs_the_command_without_a_shell_and_restarts_on_failure():
    service = unit(UNITS / "handoff-agent.service")
    command = service["Service"]["ExecStart"]
    assert len(command) == 1
    words = command[0].split()
    assert words[1:] == ["agent"]
    assert words[0].startswith("/") and words[0].endswith("/handoff")
    assert not SHELL_SYNTAX & set(command[0])
    assert service["Service"]["Restart"] == ["on-failure"]
    assert service["Unit"]["Requires"] == ["handoff-agent.socket"]
    assert service["Install"]["Also"] == ["handoff-agent.socket"]


@pytest.fixture(scope="module")
def prefix():
    folder = Path(tempfile.mkdtemp(prefix="handoff-units-"))
    try:
        installed = make("install", f"PREFIX={folder}")
        assert installed.returncode == 0, installed.stdout + installed.stderr
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_install_puts_the_units_in_the_user_unit_directory(prefix):
    unit_dir = prefix / "lib" / "systemd" / "user"
    assert sorted(p.name for p in unit_dir.iterdir()) == ["handoff-agent.service", "handoff-agent.socket",
                                                          "handoff-documents.service", "handoff-mpris.service"]
    assert (unit_dir / "handoff-agent.socket").read_text() == (UNITS / "handoff-agent.socket").read_text()
    service = unit(unit_dir / "handoff-agent.service")
    assert service["Service"]["ExecStart"] == [f"{prefix}/bin/handoff agent"]
    assert os.access(prefix / "bin" / "handoff", os.X_OK)
    # Nothing else changed.
    dist = (UNITS / "handoff-agent.service").read_text().splitlines()
    installed = (unit_dir / "handoff-agent.service").read_text().splitlines()
    assert [a for a, b in zip(dist, installed) if a != b] == [l for l in dist if l.startswith("ExecStart=")]
    for name in ("handoff-agent.socket", "handoff-agent.service", "handoff-mpris.service", "handoff-documents.service"):
        assert (unit_dir / name).stat().st_mode & 0o777 == 0o644
    # The MPRIS and documents bridges' (docs/mpris.md, docs/documents.md §7):
    # only ExecStart differs from dist's.
    for name, command in (("handoff-mpris.service", "mpris-bridge"), ("handoff-documents.service", "documents-bridge")):
        bridge = unit(unit_dir / name)
        assert bridge["Service"]["ExecStart"] == [f"{prefix}/bin/handoff {command}"]
        dist = (UNITS / name).read_text().splitlines()
        installed = (unit_dir / name).read_text().splitlines()
        assert [a for a, b in zip(dist, installed) if a != b] == [l for l in dist if l.startswith("ExecStart=")]


@needs_systemd_analyze
def test_systemd_accepts_the_installed_units(prefix):
    checked = verify(prefix / "lib" / "systemd" / "user", prefix)
    assert checked.returncode == 0, checked.stderr
    assert checked.stderr.strip() == "", checked.stderr  # warnings (an unknown key, a bad value) included


@needs_systemd_analyze
def test_systemd_refuses_a_service_whose_command_is_missing(prefix, tmp_path):
    # The check above can fail: a unit naming a program that is not there.
    shutil.copy(prefix / "lib" / "systemd" / "user" / "handoff-agent.socket", tmp_path)
    text = (prefix / "lib" / "systemd" / "user" / "handoff-agent.service").read_text()
    (tmp_path / "handoff-agent.service").write_text(text.replace(f"{prefix}/bin/handoff", f"{tmp_path}/missing/handoff"))
    checked = verify(tmp_path, prefix)
    assert checked.returncode != 0
    assert "missing/handoff" in checked.stderr


@needs_systemd_analyze
def test_a_percent_in_the_prefix_is_escaped_for_systemd():
    folder = Path(tempfile.mkdtemp(prefix="handoff-units-%h-"))
    try:
        installed = make("install", f"PREFIX={folder}")
        assert installed.returncode == 0, installed.stdout + installed.stderr
        unit_dir = folder / "lib" / "systemd" / "user"
        escaped = str(folder).replace("%", "%%")
        assert unit(unit_dir / "handoff-agent.service")["Service"]["ExecStart"] == [f"{escaped}/bin/handoff agent"]
        checked = verify(unit_dir, folder)  # fails if systemd looked for $HOME's expansion instead
        assert checked.returncode == 0 and checked.stderr.strip() == "", checked.stderr
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_destdir_stages_the_units_and_uninstall_removes_them():
    stage = Path(tempfile.mkdtemp(prefix="handoff-units-stage-"))
    try:
        installed = make("install", f"DESTDIR={stage}", "PREFIX=/opt/handoff")
        assert installed.returncode == 0, installed.stderr
        unit_dir = stage / "opt" / "handoff" / "lib" / "systemd" / "user"
        service = unit(unit_dir / "handoff-agent.service")
        assert service["Service"]["ExecStart"] == ["/opt/handoff/bin/handoff agent"]
        assert (unit_dir / "handoff-agent.socket").is_file()
        removed = make("uninstall", f"DESTDIR={stage}", "PREFIX=/opt/handoff")
        assert removed.returncode == 0, removed.stderr
        assert not [p for p in (stage / "opt").rglob("*") if p.is_file() or p.is_symlink()]
    finally:
        shutil.rmtree(stage, ignore_errors=True)
