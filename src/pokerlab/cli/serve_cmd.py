"""``pokerlab serve``: the web page and JSON API under uvicorn (needs the ``web`` extra)."""

from __future__ import annotations

import signal
import socket
import threading

import typer

from pokerlab.cli.common import command
from pokerlab.errors import InvalidArgumentError


def _check_free(host: str, port: int) -> None:
    """Refuse a port that is taken before the workers start, with one line instead of uvicorn's log."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise InvalidArgumentError(f"cannot resolve host {host!r}: {error.strerror}") from error
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            raise InvalidArgumentError(f"cannot listen on {host}:{port}: {error.strerror}") from error


WILDCARDS = ("0.0.0.0", "::", "")


def _allowed_hosts(host: str, names: list[str]) -> tuple[str, ...]:
    """The Host headers to answer: this machine's names, the address bound and ``names``; nothing to check (any
    host, with a warning) on a wildcard address without ``names``, whose names the server cannot know."""
    from pokerlab.web.guard import LOOPBACK_HOSTS

    wildcard = host in WILDCARDS
    hosts = () if wildcard and not names else tuple(dict.fromkeys([*LOOPBACK_HOSTS, *([] if wildcard else [host]),
                                                                   *names]))
    if host not in LOOPBACK_HOSTS:
        checked = (f"the Host header is checked against {', '.join(hosts)}" if hosts else
                   "the Host header is not checked (give --allow-host NAME for each name the server is reached by)")
        typer.echo(f"warning: --host {host} lets other machines reach this server, and anyone who can reach it "
                   f"can run jobs on it (there is no login); {checked}", err=True)
    return hosts


@command("serve")
def serve_command(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (127.0.0.1: this machine only)."),
    port: int = typer.Option(8000, "--port", help="TCP port."),
    workers: int = typer.Option(2, "--workers", help="Worker processes for the computations (1 to 64)."),
    queue: int = typer.Option(32, "--queue", help="Requests that may wait for a worker; more get 503."),
    allow_host: list[str] = typer.Option([], "--allow-host", help="A name the server is reached by (the Host "
                                         "header; repeat for several). On 127.0.0.1 it answers to 127.0.0.1 and "
                                         "localhost only; on another address to these names and that address."),
) -> None:
    """Serve the web page (equity, ICM, push/fold, solving) and its JSON API at http://HOST:PORT."""
    if not 1 <= workers <= 64:
        raise InvalidArgumentError(f"--workers must be from 1 to 64, got {workers}")
    if queue < 0:
        raise InvalidArgumentError(f"--queue must be >= 0, got {queue}")
    if not 0 < port < 65536:
        raise InvalidArgumentError(f"--port must be from 1 to 65535, got {port}")
    try:
        import uvicorn

        from pokerlab.web.app import Settings, create_app
    except ImportError as error:
        raise InvalidArgumentError(f"the web server needs the web extra: pip install 'pokerlab[web]' "
                                   f"({error.name} is missing)") from error
    _check_free(host, port)
    hosts = _allowed_hosts(host, allow_host)
    # Ctrl-C and SIGTERM are blocked in every thread of the server started from here on (they inherit the mask)
    # and taken by one thread that asks uvicorn to shut down: no KeyboardInterrupt can surface inside the server
    # or its event loop. Threads started before (OpenBLAS's) may take one: Python's handler then runs uvicorn's,
    # which shuts down the same way. The workers start with SIGINT blocked and then ignore it (web.jobs); this
    # process never ignores it, so no Ctrl-C is lost while they start
    stops = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    settings = Settings(workers=workers, max_queue=queue, allowed_hosts=hosts)
    # an idle kept-alive connection is closed by the client first: clients expire theirs after 5 s (httpx) or
    # retry (browsers); at uvicorn's default of 5 s both ends closed at once and a request sent on the closing
    # connection failed with a reset (1 in 2,000 in the load test on a busy machine)
    server = uvicorn.Server(uvicorn.Config(create_app(settings), host=host, port=port, log_level="warning",
                                           timeout_graceful_shutdown=1, timeout_keep_alive=30))

    def forward_signals() -> None:
        while True:
            server.handle_exit(signal.sigwait(stops), None)  # a second Ctrl-C: uvicorn stops at once

    threading.Thread(target=forward_signals, daemon=True, name="pokerlab-signals").start()
    typer.echo(f"pokerlab serving on http://{host}:{port} (API docs at /docs); Ctrl-C stops", err=True)
    server.run()
    if server.should_exit:  # Ctrl-C (or SIGTERM) rather than a failure to start
        typer.echo("stopped", err=True)
        raise typer.Exit(code=130)
