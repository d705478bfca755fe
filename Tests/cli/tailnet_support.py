# SPDX-License-Identifier: MIT OR Apache-2.0
"""A stand-in for tailscaled's LocalAPI: real HTTP/1.1 over a Unix socket,
answering `GET /localapi/v0/status` with JSON shaped as tailscale's
ipnstate.Status / PeerStatus marshal it (tailscaled cannot run in the
tests). It records every request, so tests can check what the tool sent.

Modes: "status" (the JSON, chunked as Go's net/http sends a body it did
not buffer), "garbage" (not HTTP), "huge" (a 200 with a body over the
reader's 4 MiB bound), "slow" (accepts, reads, never answers until closed).
"""

import json
import os
import socket
import threading


def peer_status(host, user, ips, online=True, sharee=None, tags=None):
    """One ipnstate.PeerStatus, with fields that do not matter too. `tags`:
    its ACL tags (marshalled only when given, as ipnstate's omitempty)."""
    peer = {
        "ID": "n" + host, "PublicKey": "nodekey:" + host.encode().hex(), "HostName": host,
        "DNSName": host + ".tail1234.ts.net.", "OS": "linux", "UserID": user, "TailscaleIPs": ips,
        "AllowedIPs": [ip + ("/32" if "." in ip else "/128") for ip in ips], "Addrs": None, "CurAddr": "",
        "Relay": "fra", "RxBytes": 0, "TxBytes": 0, "Created": "2026-01-01T00:00:00Z",
        "LastWrite": "0001-01-01T00:00:00Z", "LastSeen": "2026-11-27T00:00:00Z",
        "LastHandshake": "0001-01-01T00:00:00Z", "Online": online, "ExitNode": False,
        "ExitNodeOption": False, "Active": False, "PeerAPIURL": None, "InNetworkMap": True,
        "InMagicSock": True, "InEngine": False,
    }
    if sharee is not None:
        peer["ShareeNode"] = sharee
    if tags is not None:
        peer["Tags"] = tags
    return peer


# The one UserID every tagged node of a tailnet shows ("tagged-devices").
TAGGED_DEVICES = 2147455555


def status(self_host, self_ips, peers, user=7, state="Running", self_tags=None):
    """ipnstate.Status: `peers` maps a node key to a PeerStatus."""
    return {
        "Version": "1.76.1-test", "TUN": True, "BackendState": state, "AuthURL": "",
        "TailscaleIPs": self_ips, "Self": peer_status(self_host, user, self_ips, tags=self_tags), "Health": [],
        "MagicDNSSuffix": "tail1234.ts.net",
        "CurrentTailnet": {"Name": "ada@example.com", "MagicDNSSuffix": "tail1234.ts.net", "MagicDNSEnabled": True},
        "CertDomains": None, "Peer": peers,
        "User": {str(user): {"ID": user, "LoginName": "ada@example.com", "DisplayName": "Ada"}},
        "ClientVersion": None,
    }


class FakeTailscaled:
    """Serves on `path` until closed; `requests` holds each request's
    (request line, headers dict)."""

    def __init__(self, path, body=None, mode="status"):
        self.path = str(path)
        self.body = body
        self.mode = mode
        self.requests = []
        self.connections = 0
        self._lock = threading.Lock()
        self._open = []
        if os.path.exists(self.path):
            os.unlink(self.path)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(16)
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while not self._stop:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
                self._open.append(conn)
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _read_request(self, conn):
        data = b""
        conn.settimeout(10)
        while b"\r\n\r\n" not in data and len(data) < 65536:
            chunk = conn.recv(4096)
            if not chunk:
                break
            data += chunk
        head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
        headers = {}
        for line in head[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        with self._lock:
            self.requests.append((head[0], headers))

    def _answer(self, conn):
        try:
            self._read_request(conn)
            if self.mode == "garbage":
                conn.sendall(b"\x00\xffthis is not HTTP at all\r\n\r\n{]")
            elif self.mode == "huge":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 5242880\r\n\r\n")
                block = b" " * 65536
                for _ in range(80):
                    conn.sendall(block)
            elif self.mode == "slow":
                conn.settimeout(None)
                conn.recv(1)  # until the client gives up and closes
            else:
                body = json.dumps(self.body).encode()
                out = [b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                       b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"]
                for i in range(0, len(body), 1000):
                    piece = body[i:i + 1000]
                    out.append(b"%x\r\n" % len(piece) + piece + b"\r\n")
                out.append(b"0\r\n\r\n")
                conn.sendall(b"".join(out))
        except OSError:
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def close(self):
        self._stop = True
        try:
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()
        with self._lock:
            for conn in self._open:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        self._thread.join(timeout=5)
        if os.path.exists(self.path):
            os.unlink(self.path)
