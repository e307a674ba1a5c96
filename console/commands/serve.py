"""`gatepost serve`: the console in a browser, through textual-serve.

Each browser tab that opens the page gets its own console process, run as
`gatepost --db STORE console --as PERSON`; whoever opens it acts as that person. So:
- only loopback addresses are served unless --public says otherwise;
- the browser needs a key: each start makes a random token, printed in the URL (as Jupyter
  does); the page sets it as a cookie (HttpOnly, SameSite=Strict) for its WebSocket and files,
  and every request without it is refused (403);
- against DNS rebinding and other sites' pages, the `Host` header must name the served host
  and a WebSocket's `Origin` must be the served origin (anything else 403).
"""

import contextlib
import contextvars
import errno
import hmac
import ipaddress
import logging
import secrets
import shlex
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, cast
from urllib.parse import quote, urlsplit

import click

from gatepost import output
from gatepost.commands._common import as_option, open_ctx_store, person, store_path
from gatepost.links import parse_link
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
    # TCP addresses are AF_INET/AF_INET6, whose sockaddr starts with the host as a str
    return bool(infos) and all(ipaddress.ip_address(cast(str, info[4][0]).split("%")[0]).is_loopback
                               for info in infos)


def console_command(db: Path, who: str, link: str | None = None) -> str:
    """The shell command textual-serve runs per browser session (textual-serve takes a command string);
    `link` (a checked KIND:ID deep link) opens it on that item. Every part is shell-quoted."""
    argv = [sys.executable, "-m", "gatepost", "--db", str(db), "console", "--as", who]
    if link is not None:
        parse_link(link)  # never a shell word that is not a checked link
        argv.append(f"--open={link}")
    return " ".join(shlex.quote(part) for part in argv)


OPEN_PARAM = "open"


def open_refusal(link: str | None) -> str | None:
    """Why an `open` URL parameter is refused (one line), or None (absent or a valid KIND:ID link)."""
    if link is None:
        return None
    try:
        parse_link(link)
    except ValueError as exc:
        return f"serve: refused: open: {str(exc).removeprefix('--open: ')}"
    return None


def link_query(link: str | None) -> str:
    """`&open=KIND:ID` for the printed URL (percent-encoded), or nothing."""
    return f"&{OPEN_PARAM}={quote(link, safe=':')}" if link else ""


def page_url(host: str, port: int) -> str:
    """The address a browser opens; a wildcard host is reached through this machine's name."""
    if host in WILDCARDS:
        name = socket.getfqdn()
        host = name if name and not name.startswith("localhost") else (socket.gethostname() or "localhost")
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}"


TOKEN_PARAM = "token"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def cookie_name(port: int) -> str:
    """Cookies are per host, not per port: each served port has its own cookie."""
    return f"gatepost_token_{port}"


def served_hosts(host: str, port: int, public_url: str | None) -> set[str]:
    """The `Host` headers this server answers: the bound host, the public URL's, and loopback names on loopback."""
    hosts = {f"{host}:{port}" if ":" not in host or host.startswith("[") else f"[{host}]:{port}"}
    if host in WILDCARDS or is_loopback(host):
        hosts |= {f"{name}:{port}" for name in LOOPBACK_NAMES}
    if public_url:
        parts = urlsplit(public_url)
        default = 443 if parts.scheme == "https" else 80
        hosts.add(parts.netloc if parts.port else f"{parts.netloc}:{default}")
        if parts.port is None:
            hosts.add(parts.netloc)
    return {h.lower() for h in hosts}


def served_origins(hosts: set[str], public_url: str | None) -> set[str]:
    """The `Origin`s a WebSocket may come from: the served pages' own."""
    scheme = urlsplit(public_url).scheme if public_url else "http"
    origins = {f"{scheme}://{h}" for h in hosts}
    for h in hosts:  # browsers leave the default port out of Origin
        if h.endswith(":80") and scheme == "http" or h.endswith(":443") and scheme == "https":
            origins.add(f"{scheme}://{h.rsplit(':', 1)[0]}")
    return origins


def refusal(*, host: str | None, origin: str | None, websocket: bool, query_token: str | None,
            cookie_token: str | None, token: str, hosts: set[str], origins: set[str]) -> str | None:
    """Why a request is refused (one line), or None to serve it."""
    if (host or "").lower() not in hosts:
        return f"serve: refused: host: {host!r} is not the served host (DNS rebinding?)"
    if websocket and (origin or "").lower() not in origins:
        return f"serve: refused: origin: a WebSocket from {origin or 'no origin'!r}, not from the served page"
    given = query_token or cookie_token or ""
    if not hmac.compare_digest(given.encode(), token.encode()):
        return "serve: refused: token: open the URL `gatepost serve` printed (it carries this start's token)"
    return None


def _server_class() -> type[Any]:
    import asyncio
    import signal

    import aiohttp_jinja2
    from aiohttp import web
    from textual_serve.server import Server

    session_link: contextvars.ContextVar[str | None] = contextvars.ContextVar("session_link", default=None)

    class GatepostServer(Server):
        """textual-serve's server, announcing itself in gatepost's words once it really listens."""

        def __init__(self, *args: Any, banner: str, token: str, hosts: set[str], origins: set[str],
                     console: Callable[[str | None], str], **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.console_for = console  # the console command for a deep link (or None)
            self.banner = banner
            self.token = token
            self.hosts = hosts
            self.origins = origins

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            cookie = cookie_name(self.port)

            @web.middleware
            async def guard(request: web.Request,
                            handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
                websocket = request.headers.get("Upgrade", "").lower() == "websocket"
                why = refusal(host=request.headers.get("Host"), origin=request.headers.get("Origin"),
                              websocket=websocket, query_token=request.query.get(TOKEN_PARAM),
                              cookie_token=request.cookies.get(cookie), token=self.token,
                              hosts=self.hosts, origins=self.origins)
                if why is not None:
                    return web.Response(status=403, text=why + "\n")
                link = request.match_info.get("link") if request.match_info.get("link") is not None \
                    else request.query.get(OPEN_PARAM)
                why = open_refusal(link)
                if why is not None:
                    return web.Response(status=400, text=why + "\n")
                response = await handler(request)
                if request.query.get(TOKEN_PARAM) and isinstance(response, web.Response):
                    response.set_cookie(cookie, self.token, httponly=True, samesite="Strict", path="/")
                return response

            app.middlewares.append(guard)
            # the page opened with ?open=KIND:ID connects here: its console starts on that item
            app.router.add_get("/ws/open/{link}", self.handle_websocket, name="websocket-open")
            return app

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            """textual-serve's page; with ?open=KIND:ID (checked by the guard) its WebSocket carries the link."""
            unrendered = Server.handle_index.__wrapped__  # type: ignore[attr-defined]  # aiohttp_jinja2 wraps it
            context = await unrendered(self, request)  # the template's data
            link = request.query.get(OPEN_PARAM)
            if link:
                url = request.app.router["websocket-open"].url_for(link=link)
                context["app_websocket_url"] = context["app_websocket_url"].rsplit("/ws", 1)[0] + str(url)
            return aiohttp_jinja2.render_template("app_index.html", request, context)

        @property
        def command(self) -> str:
            """The console command textual-serve's own session handler starts: the one for this session's deep
            link (a context variable, so concurrent sessions each see their own)."""
            return self.console_for(session_link.get())

        @command.setter
        def command(self, value: str) -> None:
            """textual-serve's constructor sets a fixed command; gatepost's is derived per session instead."""

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            """textual-serve's session, running the console on the link's item when there is one."""
            session_link.set(request.match_info.get("link"))  # this request's task only
            response: web.WebSocketResponse = await super().handle_websocket(request)
            return response

        async def on_startup(self, app: web.Application) -> None:
            """Say nothing yet: the port is not bound at startup, so a busy port would lie."""

        def initialize_logging(self) -> None:
            """Every log line (aiohttp's access log, textual-serve's) through the inert printer, token removed."""
            logging.basicConfig(level=logging.DEBUG if self.debug else logging.INFO, force=True,
                                handlers=[InertLogHandler(self.token)])

        def serve(self, debug: bool = False) -> None:
            self.debug = debug
            self.initialize_logging()
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            loop.add_signal_handler(signal.SIGINT, self.request_exit)
            loop.add_signal_handler(signal.SIGTERM, self.request_exit)
            web.run_app(self._make_app(), host=self.host, port=self.port, handle_signals=False,
                        loop=loop, print=lambda *_: output.line(self.banner))

    return GatepostServer


class InertLogHandler(logging.Handler):
    """A log record as one inert line on stdout, like every other line gatepost prints; the token never.

    A request's line and its headers (User-Agent, Referer) are the sender's bytes: shown escaped, one
    line each. The token is in every URL the browser requests and in its Referer: replaced by `<token>`.
    """

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token
        self.setFormatter(logging.Formatter("%(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
        except Exception:  # a record whose arguments do not fit its format: its raw message, still inert
            text = f"{record.name}: {record.msg!r}"
        with contextlib.suppress(OSError, ValueError):  # stdout gone: the server goes on without its log
            output.line(text.replace(self.token, "<token>"))


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
@click.option("--open", "open_at", metavar="KIND:ID", default=None,
              help="Print the URL that opens straight on one item: results:RUN_ID, case:ID, skill:NAME, draft:ID "
                   "or proposal:ID (the page takes it as ?open=KIND:ID).")
@as_option
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, public: bool, public_url: str | None, open_at: str | None,
          as_name: str | None) -> None:
    """Serve the review console to a web browser (each tab runs its own console).

    Every visitor of the page acts as the --as person, with that person's
    capabilities, so by default it listens on 127.0.0.1 only, and the page needs
    the random token of this start: open the URL it prints. Stop it with Ctrl+C.

    \b
    Examples:
      gatepost --db review.db serve --as ana           # then open the http://127.0.0.1:8000/?token=… it prints
      gatepost serve --port 8123
      gatepost serve --open results:RUN_ID                # a link a CI log can give a reviewer
      gatepost serve --host 0.0.0.0 --public --public-url http://review.lan:8000
    """
    if open_at is not None:
        try:
            parse_link(open_at)
        except ValueError as exc:
            raise InputError(str(exc)) from None
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
        output.line(f"gatepost: warning: listening on {host}: anyone who reaches port {port} acts as {who}, "
                    "with no login", err=True)
    if actor is None or actor["kind"] != "person":
        output.line(f"gatepost: note: {who} is not a person of this store, so visitors can browse but not "
                    "decide (choose someone with --as, or `gatepost actors add`)", err=True)
    url = (public_url or page_url(host, port)).rstrip("/")
    token = secrets.token_urlsafe(24)
    hosts = served_hosts(host, port, public_url or url)
    banner = (f"gatepost: serving the console on {url}/?{TOKEN_PARAM}={token}{link_query(open_at)} as {who} "
              f"(store {path}); "
              f"anyone who opens that URL acts as {who}; without its token every request is refused. Ctrl+C stops.")
    server = _server_class()(console_command(path, who), host=host, port=port,
                             title=f"gatepost · {path.name} · {who}", public_url=url, banner=banner,
                             console=lambda link: console_command(path, who, link),
                             token=token, hosts=hosts, origins=served_origins(hosts, public_url or url))
    try:
        server.serve()
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise InputError(f"--port {port}: already in use on {host}; choose another with --port") from None
        raise InputError(f"--host {host} --port {port}: cannot listen ({exc.strerror or exc})") from None
