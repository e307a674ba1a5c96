"""`gatepost serve`: the console in a browser, through textual-serve.

Each browser tab that opens the page gets its own console process, run as
`gatepost --db STORE console --as PERSON`; whoever reaches the port acts as
that person, which is why only loopback addresses are served unless --public
says otherwise.
"""

import errno
import ipaddress
import shlex
import socket
import sys
from pathlib import Path

import click

from gatepost.commands._common import as_option, open_ctx_store, person, store_path
from gatepost.store.kernel import InputError, get_actor

WILDCARDS = {"0.0.0.0", "::", ""}


def is_loopback(host: str) -> bool:
    """True when every address `host` names is a loopback address (so only this machine reaches it)."""
    if host in WILDCARDS:
        return False
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError) as exc:
        raise InputError(f"--host: cannot resolve {host!r} ({exc}); give an address such as 127.0.0.1") from None
    return bool(infos) and all(ipaddress.ip_address(info[4][0].split("%")[0]).is_loopback for info in infos)


def console_command(db: Path, who: str) -> str:
    """The shell command textual-serve runs per browser session (textual-serve takes a command string)."""
    argv = [sys.executable, "-m", "gatepost", "--db", str(db), "console", "--as", who]
    return " ".join(shlex.quote(part) for part in argv)


def page_url(host: str, port: int) -> str:
    """The address a browser opens; a wildcard host is reached through this machine's name."""
    if host in WILDCARDS:
        name = socket.getfqdn()
        host = name if name and not name.startswith("localhost") else (socket.gethostname() or "localhost")
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}"


def _server_class():
    import asyncio
    import signal

    from aiohttp import web
    from textual_serve.server import Server

    class GatepostServer(Server):
        """textual-serve's server, announcing itself in gatepost's words once it really listens."""

        def __init__(self, *args, banner: str, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.banner = banner

        async def on_startup(self, app) -> None:
            """Say nothing yet: the port is not bound at startup, so a busy port would lie."""

        def serve(self, debug: bool = False) -> None:
            self.debug = debug
            self.initialize_logging()
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            loop.add_signal_handler(signal.SIGINT, self.request_exit)
            loop.add_signal_handler(signal.SIGTERM, self.request_exit)
            web.run_app(self._make_app(), host=self.host, port=self.port, handle_signals=False,
                        loop=loop, print=lambda *_: click.echo(self.banner))

    return GatepostServer


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Only loopback addresses (this machine) unless --public is given.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True,
              help="TCP port to listen on.")
@click.option("--public", is_flag=True,
              help="Allow a non-loopback --host. Anyone who can reach the port then acts as the --as person.")
@click.option("--public-url", metavar="URL", default=None,
              help="The address browsers use to reach this server, when it differs from http://HOST:PORT "
                   "(behind a reverse proxy, or listening on 0.0.0.0).")
@as_option
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, public: bool, public_url: str | None,
          as_name: str | None) -> None:
    """Serve the review console to a web browser (each tab runs its own console).

    Every visitor of the page acts as the --as person, with that person's
    capabilities, so by default it listens on 127.0.0.1 only. Stop it with Ctrl+C.

    \b
    Examples:
      gatepost --db review.db serve --as ana           # then open http://127.0.0.1:8000
      gatepost serve --port 8123
      gatepost serve --host 0.0.0.0 --public --public-url http://review.lan:8000
    """
    path = store_path(ctx).resolve()
    who = person(as_name)
    db = open_ctx_store(ctx)  # refuse a missing or bad store with one line before listening
    try:
        actor = get_actor(db, who)
    finally:
        db.close()
    if not is_loopback(host):
        if not public:
            raise InputError(
                f"--host {host}: not a loopback address; anyone who reaches port {port} there would act as "
                f"{who}. Add --public if that is what you want")
        click.echo(f"gatepost: warning: listening on {host}: anyone who reaches port {port} acts as {who}, "
                   "with no login", err=True)
    if actor is None or actor["kind"] != "person":
        click.echo(f"gatepost: note: {who} is not a person of this store, so visitors can browse but not "
                   "decide (choose someone with --as, or `gatepost actors add`)", err=True)
    url = (public_url or page_url(host, port)).rstrip("/")
    banner = (f"gatepost: serving the console on {url} as {who} (store {path}); "
              f"anyone who opens it acts as {who}. Ctrl+C stops.")
    server = _server_class()(console_command(path, who), host=host, port=port,
                             title=f"gatepost · {path.name} · {who}", public_url=url, banner=banner)
    try:
        server.serve()
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise InputError(f"--port {port}: already in use on {host}; choose another with --port") from None
        raise InputError(f"--host {host} --port {port}: cannot listen ({exc.strerror or exc})") from None


COMMANDS = [serve]
