"""The argument schemas of the memory tools (what the model fills in)."""

from __future__ import annotations

from pydantic import BaseModel, Field

_MAX_RECALL_K = 20


class _StmWriteInput(BaseModel):
    key: str = Field(description="Short identifier, e.g. 'current_project' or 'user_timezone'.")
    content: str = Field(description="What to keep in working memory.")
    importance: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description="0.8+ critical, 0.5 useful, 0.2 minor. New entries default to 0.5; "
        "an update keeps the old value unless given.",
    )
    tags: list[str] | str | None = Field(
        None,
        description="Tags, as a list or a comma-separated string ('task,deadline'). "
        "An update keeps the old tags unless given.",
    )


class _StmReadInput(BaseModel):
    key: str | None = Field(None, description="Entry to read; omit to read the whole scratchpad.")


class _StmDeleteInput(BaseModel):
    key: str = Field(description="The scratchpad entry to remove.")


class _RememberInput(BaseModel):
    content: str = Field(
        description="A self-contained fact, e.g. 'User prefers dark mode in all tools'."
    )
    importance: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="0.8-1.0 critical (core preferences, key decisions), 0.4-0.7 useful "
        "(recurring topics, context), 0.1-0.3 minor (tangential mentions).",
    )
    tags: list[str] | str | None = Field(
        None,
        description="Tags, as a list or a comma-separated string ('preference,ui'). Tag a "
        "standing fact about the user with one of preference, profile, identity, constraint "
        "or relationship: those reach every later conversation's context, whatever is asked.",
    )


class _RecallInput(BaseModel):
    query: str = Field(description="What to look for, in natural language or exact keywords.")
    k: int = Field(5, ge=1, le=_MAX_RECALL_K, description="How many memories to return.")
    include_history: bool = Field(
        False,
        description="Also return superseded facts (what the user used to prefer), marked.",
    )
    include_profile: bool = Field(
        True,
        description=(
            "Also list the user's standing facts (preferences, identity, constraints, "
            "relationships) after the matching memories, as the context block does: the "
            "answer to 'what do you know about me?'."
        ),
    )


class _ForgetInput(BaseModel):
    memory_id: str = Field(description="The id of the memory to delete (from memory_recall).")


class _EntityInput(BaseModel):
    name: str = Field(description="The entity's name, e.g. 'Project Alpha' or 'Alice'.")
    include_history: bool = Field(
        False, description="Also list superseded relations (with the date they ended)."
    )


class _GraphQueryInput(BaseModel):
    question: str = Field(
        description="A question about how things are related, e.g. "
        "'How are quantum computing and my research project connected?'"
    )


class _NoInput(BaseModel):
    pass


class _NotesUpdateInput(BaseModel):
    content: str = Field(
        description="The COMPLETE new content of user_notes.md (read it first and edit); "
        "short lines such as 'timezone: Europe/Paris' and '## Preferences' bullet lists."
    )
