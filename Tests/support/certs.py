# SPDX-License-Identifier: MIT OR Apache-2.0
"""Certificates for test servers: a CA made with the `openssl` command for
one test run, and a server certificate signed by it (P-256, valid two
days), so a client that trusts only that CA can check the server's name
and address as in real use."""

import subprocess
from pathlib import Path


def _openssl(*args):
    done = subprocess.run(["openssl", *map(str, args)], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError("openssl %s failed (%d): %s" % (args[0], done.returncode, done.stderr))


def ca_and_server(folder, dns_name, ip, ca_name="Handoff test CA"):
    """Makes ca.crt (and ca.key, its common name `ca_name`) and server.crt
    and server.key, for `dns_name` and the address `ip` (subject
    alternative names), in `folder`: returns (ca.crt, server.crt,
    server.key). Keys are 0600."""
    folder = Path(folder)
    ca_key, ca_crt = folder / "ca.key", folder / "ca.crt"
    key, csr, crt = folder / "server.key", folder / "server.csr", folder / "server.crt"
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl("req", "-x509", *ec, "-keyout", ca_key, "-out", ca_crt, "-days", "2",
             "-subj", "/CN=" + ca_name,
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    _openssl("req", "-new", *ec, "-keyout", key, "-out", csr, "-subj", "/CN=" + dns_name)
    extensions = folder / "server.ext"
    extensions.write_text("basicConstraints=critical,CA:FALSE\n"
                          "keyUsage=critical,digitalSignature,keyEncipherment\n"
                          "extendedKeyUsage=serverAuth\n"
                          "subjectAltName=DNS:%s,IP:%s\n" % (dns_name, ip))
    _openssl("x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key, "-CAcreateserial",
             "-out", crt, "-days", "2", "-extfile", extensions)
    for secret in (ca_key, key):
        secret.chmod(0o600)
    return ca_crt, crt, key
