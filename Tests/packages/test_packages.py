# SPDX-License-Identifier: MIT OR Apache-2.0
"""The .debs of `make deb`, installed into a fresh Debian root and used
there: their files, the dynamic linker, a real handoff between two
`handoff` processes over loopback, the Python binding on the installed
library, and a purge that leaves nothing of ours. The tests run in file
order on one root; the purge is last."""

import json
import os
import subprocess

import children
import ports
from streams import lines_of, next_event

TYPE = "com.example.packages.edit"
WAIT = 60  # seconds, bound on a process's end


def multiarch():
    return subprocess.run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"], check=True, capture_output=True,
                          text=True).stdout.strip()


def listed(root, package):
    return set(root.run("dpkg", "-L", package).stdout.split())


def test_the_packages_hold_their_files(root):
    libdir = f"/usr/lib/{multiarch()}"
    library = listed(root, "libhandoff0")
    assert f"{libdir}/libhandoff.so.0" in library
    assert any(path.startswith(f"{libdir}/libhandoff.so.0.") for path in library), library
    dev = listed(root, "libhandoff-dev")
    for path in ("/usr/include/handoff.h", "/usr/include/handoff-glib.h", f"{libdir}/libhandoff.so",
                 f"{libdir}/pkgconfig/handoff.pc"):
        assert path in dev, path
    tool = listed(root, "handoff")
    for path in ("/usr/bin/handoff", "/usr/lib/systemd/user/handoff-agent.service",
                 "/usr/lib/systemd/user/handoff-agent.socket",
                 "/usr/share/man/man1/handoff.1.gz", "/usr/share/man/man1/handoff-agent.1.gz",
                 "/usr/share/bash-completion/completions/handoff", "/usr/share/zsh/vendor-completions/_handoff",
                 "/usr/share/fish/vendor_completions.d/handoff.fish",
                 "/usr/share/icons/hicolor/scalable/apps/handoff.svg",
                 "/usr/share/icons/hicolor/scalable/status/handoff-available.svg",
                 "/usr/share/locale/de/LC_MESSAGES/handoff.mo",
                 "/etc/xdg/autostart/handoff-agent.desktop"):
        assert path in tool, path
    assert "/usr/lib/python3/dist-packages/handoff/__init__.py" in listed(root, "python3-handoff")
    # Nothing of make install's own bookkeeping.
    assert not any("install-manifest" in path for path in library | dev | tool)


def test_the_pc_file_and_the_unit_name_the_installed_paths(root):
    pc = root.file(f"/usr/lib/{multiarch()}/pkgconfig/handoff.pc").read_text()
    assert f"\nlibdir=/usr/lib/{multiarch()}\n" in pc
    assert "\nincludedir=/usr/include\n" in pc
    service = root.file("/usr/lib/systemd/user/handoff-agent.service").read_text()
    assert "\nExecStart=/usr/bin/handoff agent\n" in service
    autostart = root.file("/etc/xdg/autostart/handoff-agent.desktop").read_text()
    assert "\nExec=/usr/bin/handoff agent\n" in autostart and "\nX-systemd-skip=true\n" in autostart


def test_the_library_and_the_tool_resolve_in_the_root(root):
    libdir = f"/usr/lib/{multiarch()}"
    # The linker's cache (dpkg's ldconfig trigger) has the library, under
    # /lib or /usr/lib (merged /usr: one folder).
    cached = [line.split(" => ")[-1].strip() for line in root.run("ldconfig", "-p").stdout.splitlines()
              if line.strip().startswith("libhandoff.so.0 ")]
    assert len(cached) == 1, cached
    resolved = root.run("readlink", "-f", cached[0], f"{libdir}/libhandoff.so.0").stdout.split()
    assert resolved[0] == resolved[1], resolved
    for path in ("/usr/bin/handoff", f"{libdir}/libhandoff.so.0"):
        linked = root.run("ldd", path).stdout
        assert "not found" not in linked, linked
        assert "libssl.so.3" in linked or path.endswith("handoff"), linked
    assert "publish" in root.run("handoff", "--help").stdout
    # /usr/bin/handoff finds its German at /usr/share/locale (docs/TRANSLATING.md).
    german = root.run("handoff", "doctor", "--listen", "0", "--no-multicast", check=False,
                      env={"LANGUAGE": "de", "XDG_CONFIG_HOME": "/tmp/no-account"})
    assert "Abhilfe: `handoff account create`" in german.stdout, german


def test_a_handoff_between_two_installed_handoff_commands(root):
    a, b = {"XDG_CONFIG_HOME": "/tmp/device-a"}, {"XDG_CONFIG_HOME": "/tmp/device-b"}
    root.run("handoff", "account", "create", env=a)
    code = root.run("handoff", "account", "code", env=a).stdout.strip()
    root.run("handoff", "account", "join", code, env=b)
    port_a, port_b = ports.free_port(os.getpid() * 389), ports.free_port(os.getpid() * 389 + 7)

    def loopback(own, peer):
        return ["--beacon-port", str(own), "--no-multicast", "--peer", f"127.0.0.1:{peer}",
                "--channel", "127.0.0.1:0"]

    sender = root.spawn("handoff", "--json", "publish", *loopback(port_a, port_b), "--type", TYPE,
                        "--title", "From the package", "--info", "count:int=3", "--once", env=a)
    try:
        lines = lines_of(sender.stdout)
        published = next_event(lines, "publishing")
        result = root.run("handoff", "--json", "continue", published["id"], *loopback(port_b, port_a), env=b)
        activity = json.loads(result.stdout.splitlines()[-1])
        assert activity["id"] == published["id"] and activity["type"] == TYPE
        assert activity["title"] == "From the package" and activity["user_info"] == {"count": 3}
        assert next_event(lines, "continued")["id"] == published["id"]
        assert sender.wait(timeout=WAIT) == 0
        children.forget(sender)
    finally:
        children.kill(sender)


PYTHON_CHECK = """
import json, handoff
value = {"title": "Shopping", "items": ["milk", "eggs"], "count": 2, "done": False}
back = handoff.decode_value(handoff.encode_value(value))
maps = open("/proc/self/maps").read()
mapped = sorted({line.split()[-1] for line in maps.splitlines() if "libhandoff" in line})
print(json.dumps({"path": handoff.library_path, "version": handoff.library_version(),
                  "round_trip": back == value, "mapped": mapped}))
"""


def test_the_python_binding_loads_the_installed_library(root):
    result = root.run("python3", "-c", PYTHON_CHECK)
    loaded = json.loads(result.stdout)
    real = [p for p in listed(root, "libhandoff0") if ".so.0." in p]
    assert loaded["path"] == "libhandoff.so.0"  # the dynamic linker's search, no private copy
    assert loaded["mapped"] == real, loaded
    assert real[0].endswith(".so." + loaded["version"])
    assert loaded["round_trip"] is True


def test_purging_the_packages_leaves_nothing_of_ours(root, debs):
    owned = set()
    for package in debs:
        owned |= {p for p in listed(root, package)
                  if root.file(p).is_symlink() or root.file(p).is_file()}
    # Byte-compiled Python (the binding's postinst) counts as ours too.
    assert any(p.endswith("__init__.py") for p in owned)
    root.run("dpkg", "--purge", *debs)
    left = [p for p in owned if os.path.lexists(root.file(p))]
    assert left == []
    named = subprocess.run(["find", str(root.path), "-path", str(root.file("/tmp")), "-prune", "-o",
                            "-path", str(root.file("/proc")), "-prune", "-o", "-name", "*handoff*", "-print"],
                           capture_output=True, text=True, check=True).stdout.split()
    assert named == []
    # dpkg forgot them: no status left, not even "config-files".
    status = root.run("dpkg-query", "-W", "-f", "${db:Status-Status}\n", *debs, check=False)
    assert set(status.stdout.split()) <= {"not-installed"}, status
