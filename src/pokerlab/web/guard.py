"""What every request passes before the application sees it: a Host header this server answers to (a page
served on 127.0.0.1 must not be reachable through a DNS name an attacker points at it) and a body no larger than
the server's limit, refused from its ``Content-Length`` before a byte of it is read (a 9.5 MB body once held the
event loop for 12 s while it was parsed, and every other request waited)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
DRAIN_BYTES = 64 << 20  # of a refused body read and dropped so the client can read its 413; beyond it, closed


def host_name(header: str) -> str:
    """The host of a ``Host`` header, without its port, lower case.

    >>> host_name("LocalHost:8000"), host_name("[::1]:80"), host_name("example.org")
    ('localhost', '::1', 'example.org')
    """
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


async def _answer(send: Send, status: int, message: str) -> None:
    body = json.dumps({"detail": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class RequestGuard:
    """ASGI middleware: 400 for a ``Host`` not in ``allowed_hosts`` (empty: any host), 413 for a body over
    ``max_body`` bytes (by its ``Content-Length``, or counted as it arrives when it has none). ``uploads``: paths
    whose body may be larger (path -> bytes, with the 413's sentence): refused by ``Content-Length`` here, else
    passed on unread, for the endpoint to stream and count."""

    def __init__(self, app: ASGIApp, max_body: int, allowed_hosts: tuple[str, ...] = (),
                 uploads: dict[str, tuple[int, Callable[[int], str]]] | None = None) -> None:
        self.app = app
        self.max_body = max_body
        self.allowed_hosts = frozenset(host.lower().strip("[]") for host in allowed_hosts)
        self.uploads = uploads or {}

    def _too_large(self, size: int | None) -> str:
        shown = "more than" if size is None else f"{size:,} bytes,"
        return (f"the request body is {shown} over this server's limit of {self.max_body:,} bytes; send less "
                "(stacks, payouts and ranges fit well within it)")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
        if self.allowed_hosts and host_name(headers.get("host", "")) not in self.allowed_hosts:
            await _answer(send, 400, f"this server answers to {', '.join(sorted(self.allowed_hosts))} only, not to "
                                     f"the host {headers.get('host', '')[:80]!r}; start it with --allow-host NAME "
                                     "to serve that name")
            return
        length = headers.get("content-length")
        upload = self.uploads.get(scope.get("path", ""))
        if upload is not None:
            most, sentence = upload
            if length is not None and length.strip().isdigit() and int(length) > most:
                await _drain(receive, DRAIN_BYTES)
                await _answer(send, 413, sentence(int(length)))
                return
            await self.app(scope, receive, send)
            return
        if length is not None and length.strip().isdigit() and int(length) > self.max_body:
            await _drain(receive, DRAIN_BYTES)
            await _answer(send, 413, self._too_large(int(length)))
            return
        if scope.get("method") not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        # read the body here, bounded, and hand it to the application whole
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, _replay([], message, receive), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                if message.get("more_body", False):
                    await _drain(receive, DRAIN_BYTES)
                await _answer(send, 413, self._too_large(None))
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(chunks, None, receive), send)


async def _drain(receive: Receive, most: int) -> None:
    """Read and drop the rest of a refused body, up to ``most`` bytes (a client still sending when the answer
    comes sees its connection reset instead of the 413); no byte of it is parsed or kept."""
    while most > 0:
        message = await receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            return
        most -= len(message.get("body", b""))


def _replay(chunks: list[bytes], first: Message | None, receive: Receive) -> Receive:
    """A ``receive`` that gives the body read already (or a message received early), then the real one's."""
    pending: list[Message] = [first] if first is not None else [
        {"type": "http.request", "body": b"".join(chunks), "more_body": False}]

    async def replay() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return replay
