"""Headless Chromium for the HTML tests: a tiny DevTools protocol client (RFC 6455 websocket,
stdlib only), and the Chromium behind the module-scoped `browser` fixture (tests/conftest.py).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


class DevTools:
    """One page target of a Chromium, driven by DevTools protocol commands over a websocket."""

    def __init__(self, ws_url: str) -> None:
        url = urllib.parse.urlparse(ws_url)
        self.sock = socket.create_connection((url.hostname, url.port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {url.path} HTTP/1.1\r\nHost: {url.hostname}:{url.port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                          .encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            assert chunk, "the websocket handshake was cut"
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        assert b" 101 " in head.split(b"\r\n", 1)[0], head
        self.next_id = 0

    def _send(self, text: str) -> None:
        data = text.encode()
        header = bytearray([0x81])  # FIN + text
        if len(data) < 126:
            header.append(0x80 | len(data))
        elif len(data) < 65536:
            header.append(0x80 | 126)
            header += len(data).to_bytes(2, "big")
        else:
            header.append(0x80 | 127)
            header += len(data).to_bytes(8, "big")
        mask = os.urandom(4)
        self.sock.sendall(bytes(header) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n: int) -> bytes:
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            assert chunk, "the browser closed the websocket"
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _message(self) -> str:
        parts = []
        while True:
            b0, b1 = self._read(2)
            opcode, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = int.from_bytes(self._read(2), "big")
            elif n == 127:
                n = int.from_bytes(self._read(8), "big")
            payload = self._read(n)
            if opcode == 0x8:
                raise ConnectionError("the browser closed the websocket")
            if opcode == 0x9:  # ping
                continue
            parts.append(payload)
            if b0 & 0x80:
                return b"".join(parts).decode()

    def call(self, method: str, **params):
        msg = self._call(method, params)
        assert "error" not in msg, msg
        return msg.get("result", {})

    def _call(self, method: str, params: dict):
        """The browser's whole answer to one command (its result, or its error)."""
        self.next_id += 1
        self._send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self._message())
            if msg.get("id") == self.next_id:
                return msg

    def js(self, expression: str):
        """The expression's value in the page. One evaluated while the page navigates (a click on
        a link, then a poll for the next page) is evaluated again once the next page is there."""
        for _ in range(200):
            msg = self._call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
            if "navigated" not in str(msg.get("error", {}).get("message", "")):
                break
            time.sleep(0.05)
        assert "error" not in msg, msg
        result = msg.get("result", {})
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    def key(self, key: str, code: int, times: int = 1) -> None:
        for _ in range(times):
            for kind in ("keyDown", "keyUp"):
                self.call("Input.dispatchKeyEvent", type=kind, key=key, code=key, windowsVirtualKeyCode=code,
                          nativeVirtualKeyCode=code)

    def click(self, selector: str) -> None:
        """A real mouse click at the middle of the element (it must be on screen, not covered)."""
        x, y = self.js(f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
                       " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        hit = self.js(f"(() => {{ const e = document.elementFromPoint({x}, {y}), t = document.querySelector({json.dumps(selector)});"
                      " return e !== null && (e === t || t.contains(e)); })()")
        assert hit, f"{selector} is not visible at ({x}, {y})"
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def open(self, path: Path) -> None:
        self.call("Page.navigate", url=path.resolve().as_uri())
        deadline = time.monotonic() + 30
        while self.js("document.readyState === 'complete' && document.body.dataset.ready") != "1":
            assert time.monotonic() < deadline, "the viewer did not start"
            time.sleep(0.05)

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))


def browser_session(tmp_path_factory):
    """A headless Chromium's page target (DevTools), for the `browser` fixture of tests/conftest.py."""
    if CHROMIUM is None:
        pytest.skip("no chromium (.ci/run installs it: apt-get install chromium)")
    profile = tmp_path_factory.mktemp("chromium-profile")
    proc = subprocess.Popen(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
         "--remote-debugging-port=0", "--window-size=1400,900", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.is_file() and port_file.read_text().strip()):
            assert proc.poll() is None and time.monotonic() < deadline, "chromium did not start"
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
                    targets = json.load(r)
                page = next(t for t in targets if t.get("type") == "page")
                break
            except (OSError, StopIteration):
                assert time.monotonic() < deadline, "no page target"
                time.sleep(0.1)
        tools = DevTools(page["webSocketDebuggerUrl"])
        tools.call("Page.enable")
        tools.call("Emulation.setDeviceMetricsOverride", width=1400, height=900, deviceScaleFactor=1, mobile=False)
        yield tools
        tools.sock.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
