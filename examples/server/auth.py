"""Who may touch which memories on the server: ``langgraph.json`` → ``auth.path``.

The store pins every content read to the user its namespace names (``("memories", user)``);
this handler makes sure that user is the caller. ``authenticate`` here is a stand-in with two
fixed demo tokens: replace it with your identity provider (JWT verification, an API-key
lookup, ...). ``PRAX_DEMO_TOKENS`` (``token=user[:admin],...``) overrides the demo table.

* every store call must name the caller's own namespace (``namespace[1] == identity``);
* an administrator (permission ``admin``) may also list namespaces across users, which is
  what LangGraph Studio's memory browser asks for; content reads stay per user.
"""

from __future__ import annotations

import os
from typing import Any

from langgraph_sdk import Auth

auth = Auth()


def _tokens() -> dict[str, tuple[str, bool]]:
    spec = os.environ.get("PRAX_DEMO_TOKENS", "token-alice=alice,token-admin=admin:admin")
    table = {}
    for entry in filter(None, (part.strip() for part in spec.split(","))):
        token, _, who = entry.partition("=")
        user, _, role = who.partition(":")
        table[token] = (user, role == "admin")
    return table


@auth.authenticate
async def authenticate(authorization: str | None) -> Auth.types.MinimalUserDict:
    """The caller's identity from ``Authorization: Bearer <token>`` (demo table)."""
    token = (authorization or "").removeprefix("Bearer ").strip()
    found = _tokens().get(token)
    if found is None:
        raise Auth.exceptions.HTTPException(status_code=401, detail="unknown token")
    identity, admin = found
    return {"identity": identity, "permissions": ["admin"] if admin else []}


@auth.on.store()
async def own_memories_only(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> None:
    """Refuse any store call outside the caller's namespaces (admins may list all)."""
    namespace = tuple(value.get("namespace") or ())
    listing = "key" not in value and "query" not in value
    if listing and "admin" in ctx.permissions:
        return
    if len(namespace) < 2 or namespace[1] != ctx.user.identity:
        raise Auth.exceptions.HTTPException(status_code=403, detail="not your memory")
