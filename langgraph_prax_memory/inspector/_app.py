"""The inspector's ASGI app (Starlette): pages, static files and the guard in front of them.

The guard (:class:`_Guard`) runs before every route, static files included:

- the ``Host`` header must name the loopback (127.0.0.1, localhost, [::1]), so a web page
  that rebinds its own DNS name to 127.0.0.1 cannot read the inspector;
- a ``GET``/``HEAD`` needs ``?token=`` equal to the server's random token (compared in
  constant time); without it: 403;
- a ``POST`` is refused (403) unless the server runs with ``allow_changes``; it must carry
  the token in its form body (not the URL), come as an urlencoded form (what the pages
  post) and, when the browser sends ``Origin`` / ``Sec-Fetch-Site``, come from the
  inspector's own origin.
  No cookie is ever set, so a page on another site has nothing ambient to ride on (no
  CSRF);
- any other method: 405.

Every response forbids framing, sniffing, caching and cross-origin referrers (the token is
in the URL),
and its content security policy allows the inspector's own files only (no inline script).
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlencode, urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from langgraph_prax_memory.errors import MemoryValidationError, PraxMemoryError
from langgraph_prax_memory.inspector import _data
from langgraph_prax_memory.inspector._render import (
    PAGE_SIZE,
    context_fragment,
    graph_fragment,
    hits_fragment,
    memories_fragment,
    render,
)

if TYPE_CHECKING:
    from langgraph_prax_memory.memory import PraxMemory

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})
_SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self' data:; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "Referrer-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
    "Cross-Origin-Resource-Policy": "same-origin",
}
_FORM_TYPE = "application/x-www-form-urlencoded"
_MAX_FORM_BYTES = 64 * 1024


@dataclass(frozen=True)
class InspectorSettings:
    """How one inspector serves.

    Attributes:
        token: The secret every request must carry.
        allow_changes: Accept the changing POST routes (pending review, forget a user).
        users: When given, the only users reachable (any other id answers 404).
        allowed_hosts: ``Host`` names accepted (the loopback names by default).
    """

    token: str
    allow_changes: bool = False
    users: frozenset[str] | None = None
    allowed_hosts: frozenset[str] = LOOPBACK_HOSTS


def _same(a: str | None, b: str) -> bool:
    return a is not None and hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))


def _host_name(host: str) -> str:
    if host.startswith("["):
        return host.split("]")[0] + "]"
    return host.rsplit(":", 1)[0] if ":" in host else host


def _refuse(status: int, message: str) -> Response:
    return PlainTextResponse(message + "\n", status_code=status, headers=_SECURITY_HEADERS)


class _Guard(BaseHTTPMiddleware):
    def __init__(self, app: Any, settings: InspectorSettings) -> None:
        super().__init__(app)
        self.settings = settings

    async def dispatch(
        self, request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        s = self.settings
        if _host_name(request.headers.get("host", "")) not in s.allowed_hosts:
            return _refuse(403, "forbidden: the inspector answers on the loopback only")
        if request.method in ("GET", "HEAD"):
            # the one public path: a browser asks for /favicon.ico itself, without the token
            # (an icon, no data); a 403 there is a console error on every page
            public = request.url.path == "/favicon.ico"
            if not public and not _same(request.query_params.get("token"), s.token):
                return _refuse(403, "forbidden: missing or wrong token (use the URL printed)")
        elif request.method == "POST":
            if not s.allow_changes:
                return _refuse(
                    403, "forbidden: read-only inspector (start it with --allow-changes)"
                )
            ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype != _FORM_TYPE:
                return _refuse(415, "a change must be posted as a form")
            origin = request.headers.get("origin")
            site = request.headers.get("sec-fetch-site", "same-origin")
            if site not in ("same-origin", "none") or (
                origin is not None
                and (origin == "null" or urlsplit(origin).netloc != request.headers.get("host"))
            ):
                return _refuse(403, "forbidden: a change must come from the inspector's page")
        else:
            return _refuse(405, "method not allowed")
        response = await call_next(request)
        for name, value in _SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response


class _Pages:
    """The routes, over one open memory."""

    def __init__(self, memory: PraxMemory, settings: InspectorSettings) -> None:
        self.mem = memory
        self.s = settings

    # -- helpers --------------------------------------------------------------------
    def url(self, path: str, **params: Any) -> str:
        query = {"token": self.s.token}
        query.update({k: str(v) for k, v in params.items() if v not in (None, "")})
        return f"{path}?{urlencode(query)}"

    def page(self, template: str, *, status: int = 200, **context: Any) -> HTMLResponse:
        body = render(
            template,
            url=self.url,
            url_path=lambda path: path,
            token=self.s.token,
            allow_changes=self.s.allow_changes,
            data_dir=str(self.mem.config.data_dir),
            **context,
        )
        return HTMLResponse(body, status_code=status)

    def user(self, raw: str | None) -> str:
        """The requested user, if it may be shown here (else :class:`_NotHere`)."""
        if raw is None:
            raise MemoryValidationError("a user is required (?user=ID)")
        user = _data.valid_user(raw)
        if self.s.users is not None and user not in self.s.users:
            raise _NotHere(f"no user {user!r} in this inspector")
        return user

    def error(self, exc: Exception, user: str | None = None) -> HTMLResponse:
        status = 404 if isinstance(exc, _NotHere) else 400
        if not isinstance(exc, _NotHere | MemoryValidationError):
            status = 503
        return self.page(
            "error.html", status=status, title="Error", message=str(exc), user=user, active=""
        )

    async def form(self, request: Request) -> dict[str, str]:
        """The posted form, once its token is checked (else :class:`_BadToken`)."""
        body = await request.body()
        if len(body) > _MAX_FORM_BYTES:
            raise MemoryValidationError("the form is too large")
        parsed = parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
        values = {k: v[0] for k, v in parsed.items() if len(v) == 1}
        if not _same(values.get("token"), self.s.token):
            raise _BadToken
        return values

    # -- pages ----------------------------------------------------------------------
    def users(self, request: Request) -> Response:
        names = _data.known_users(self.mem)
        if self.s.users is not None:
            names = [u for u in names if u in self.s.users] or sorted(self.s.users)
        rows = [_data.user_summary(self.mem, u) for u in names]
        return self.page("users.html", title="Users", users=rows)

    def memories(self, request: Request) -> Response:
        p = request.query_params
        user = None
        keep = {k: p.get(k, "") for k in ("q", "source", "tag", "state", "sort")}
        keep["state"] = keep["state"] or "all"
        keep["sort"] = keep["sort"] or "newest"
        try:
            user = self.user(p.get("user"))
            got = _data.memory_page(
                self.mem,
                user,
                q=keep["q"],
                source=keep["source"],
                tag=keep["tag"],
                state=keep["state"],
                sort=keep["sort"],
                page=_int(p.get("page"), 1),
                after=p.get("after", ""),
                before=p.get("before", ""),
                page_size=PAGE_SIZE,
            )
        except PraxMemoryError as exc:
            return self.error(exc, user)
        return self.page(
            "memories.html",
            title=f"Memories of {user}",
            user=user,
            active="memories",
            table=_markup(memories_fragment(got.rows, total=got.matched)),
            sorts=list(_data.SORTS.items()),
            sort_label=_data.SORTS[keep["sort"]],
            sources=got.sources,
            tags=got.tags,
            page=got.page,
            pages=got.pages,
            page_numbers=page_window(got.page, got.pages),
            page_size=PAGE_SIZE,
            matched=got.matched,
            total=got.total,
            shown_from=got.start + 1 if got.rows else 0,
            shown_to=got.start + len(got.rows),
            first=got.first.text() if got.first else None,
            last=got.last.text() if got.last else None,
            keep={"user": user, **keep},
            q=keep["q"],
            source=keep["source"],
            tag=keep["tag"],
            state=keep["state"],
            sort=keep["sort"],
        )

    def playground(self, request: Request) -> Response:
        p = request.query_params
        user = None
        try:
            user = self.user(p.get("user"))
            q = p.get("q", "").strip()
            k = min(50, max(1, _int(p.get("k"), 5)))
            hits = context = ""
            details = None
            if q:
                details, built = _data.playground(self.mem, user, q, k=k)
                hits = hits_fragment(
                    details.hits,
                    query=q,
                    floor=self.mem.config.retrieval.relevance_floor,
                    context=built,
                )
                context = context_fragment(built.text, query=q, context=built)
        except PraxMemoryError as exc:
            return self.error(exc, user)
        return self.page(
            "playground.html",
            title=f"Recall playground for {user}",
            user=user,
            active="playground",
            q=q,
            k=k,
            hits=_markup(hits),
            context=_markup(context),
            details=details,
        )

    def graph(self, request: Request) -> Response:
        user = None
        try:
            user = self.user(request.query_params.get("user"))
            fragment = graph_fragment(_data.graph_data(self.mem, user))
        except PraxMemoryError as exc:
            return self.error(exc, user)
        return self.page(
            "graph.html",
            title=f"Graph of {user}",
            user=user,
            active="graph",
            graph=_markup(fragment),
        )

    def consolidation(self, request: Request) -> Response:
        user = None
        p = request.query_params
        # after a decision the POST redirects here (post/redirect/get: a reload does not
        # post again); the notice is rebuilt from what was decided
        message = _data.decision_notice(p.get("decided", ""), p.get("key", ""), p.get("memory", ""))
        try:
            user = self.user(p.get("user"))
            state = _data.read_state(self.mem, user)
            queue = _data.pending(self.mem, user)
        except PraxMemoryError as exc:
            return self.error(exc, user)
        return self.page(
            "consolidation.html",
            title=f"Consolidation of {user}",
            user=user,
            active="consolidation",
            state=state,
            pending=queue,
            message=message,
        )

    def forget(self, request: Request) -> Response:
        user = None
        try:
            user = self.user(request.query_params.get("user"))
        except PraxMemoryError as exc:
            return self.error(exc, user)
        return self.page(
            "forget.html", title=f"Forget {user}", user=user, active="forget", receipt=None
        )

    # -- changes (POST, token in the body, allow_changes) -------------------------------
    async def review(self, request: Request) -> Response:
        user = None
        try:
            form = await self.form(request)
            user = self.user(form.get("user"))
            key, decision = form.get("key", ""), form.get("decision", "")
            memory_id = _data.decide(self.mem, user, key, decision)
        except _BadToken:
            return _refuse(403, "forbidden: missing or wrong token in the form")
        except PraxMemoryError as exc:
            return self.error(exc, user)
        done = self.url(
            "/consolidation", user=user, decided=decision, key=key, memory=memory_id or ""
        )
        return RedirectResponse(done, status_code=303)

    async def forget_post(self, request: Request) -> Response:
        user = None
        try:
            form = await self.form(request)
            user = self.user(form.get("user"))
            receipt = _data.forget_user(self.mem, user, form.get("confirm", ""))
        except _BadToken:
            return _refuse(403, "forbidden: missing or wrong token in the form")
        except MemoryValidationError as exc:
            if user is None:
                return self.error(exc, user)
            return self.page(
                "forget.html",
                status=400,
                title=f"Forget {user}",
                user=user,
                active="forget",
                receipt=None,
                message=str(exc),
            )
        except PraxMemoryError as exc:
            return self.error(exc, user)
        return self.page(
            "forget.html", title=f"Forgot {user}", user=user, active="forget", receipt=receipt
        )


class _NotHere(PraxMemoryError):
    """A user this inspector does not show (404)."""


class _BadToken(Exception):
    """A form without the right token."""


def page_window(page: int, pages: int, *, around: int = 2) -> list[int | None]:
    """The page numbers a pager links: the first and last two, and ``around`` each side.

    ``None`` stands where numbers are left out.

    Example:
        >>> page_window(10, 200)
        [1, 2, None, 8, 9, 10, 11, 12, None, 199, 200]
        >>> page_window(2, 4)
        [1, 2, 3, 4]
    """
    shown = sorted(
        {n for n in (1, 2, pages - 1, pages) if 1 <= n <= pages}
        | set(range(max(1, page - around), min(pages, page + around) + 1))
    )
    out: list[int | None] = []
    previous = 0
    for n in shown:
        if previous and n > previous + 1:
            out.append(None)
        out.append(n)
        previous = n
    return out


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def _markup(fragment: str) -> Any:
    """A fragment rendered by our own (autoescaping) templates, to include unescaped."""
    from markupsafe import Markup

    return Markup(fragment)


def _favicon(request: Request) -> Response:
    """The inspector's icon at the path browsers ask for by themselves (no token needed)."""
    from importlib import resources

    icon = resources.files("langgraph_prax_memory.inspector").joinpath("static/favicon.svg")
    return Response(icon.read_bytes(), media_type="image/svg+xml")


def create_app(
    memory: PraxMemory,
    *,
    token: str,
    allow_changes: bool = False,
    users: Iterable[str] | None = None,
    allowed_hosts: Iterable[str] = LOOPBACK_HOSTS,
) -> Starlette:
    """The inspector's ASGI app over an open memory.

    Args:
        memory: The memory to show (not closed by the app).
        token: The secret every request must carry (``?token=`` or, for a POST, the form).
        allow_changes: Accept pending-review decisions and forgetting a user (POST only).
        users: Restrict the inspector to these users (others answer 404).
        allowed_hosts: ``Host`` names accepted (the loopback by default).

    Example:
        >>> import secrets, uvicorn  # doctest: +SKIP
        >>> app = create_app(memory, token=secrets.token_urlsafe(24))  # doctest: +SKIP
        >>> uvicorn.run(app, host="127.0.0.1", port=8765)  # doctest: +SKIP
    """
    if not token or len(token) < 16:
        raise MemoryValidationError("the inspector's token must have at least 16 characters")
    settings = InspectorSettings(
        token=token,
        allow_changes=allow_changes,
        users=frozenset(_data.valid_user(u) for u in users) if users is not None else None,
        allowed_hosts=frozenset(allowed_hosts),
    )
    pages = _Pages(memory, settings)
    routes = [
        Route("/", pages.users, methods=["GET"]),
        Route("/favicon.ico", _favicon, methods=["GET"]),
        Route("/memories", pages.memories, methods=["GET"]),
        Route("/playground", pages.playground, methods=["GET"]),
        Route("/graph", pages.graph, methods=["GET"]),
        Route("/consolidation", pages.consolidation, methods=["GET"]),
        Route("/forget", pages.forget, methods=["GET"]),
        Route("/review", pages.review, methods=["POST"]),
        Route("/forget", pages.forget_post, methods=["POST"]),
        Mount(
            "/static",
            app=StaticFiles(packages=[("langgraph_prax_memory.inspector", "static")]),
            name="static",
        ),
    ]
    return Starlette(routes=routes, middleware=[Middleware(_Guard, settings=settings)])
