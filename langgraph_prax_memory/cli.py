"""The ``prax-memory`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from langgraph_prax_memory.config import MemoryConfig
from langgraph_prax_memory.context import format_memories
from langgraph_prax_memory.errors import PraxMemoryError
from langgraph_prax_memory.memory import PraxMemory

__all__ = ["main"]

DEMO_USER = "demo-user"
DEMO_FACTS: list[tuple[str, float, str]] = [
    ("User prefers Rust for systems projects and Python for scripts.", 0.8, "preference,language"),
    ("User uses NixOS with flake-based project templates.", 0.7, "preference,tooling"),
    ("User insists on MIT license for all personal projects.", 0.9, "preference,license"),
    ("User's preferred editor is Helix with catppuccin theme.", 0.6, "preference,editor"),
    ("User mentioned having coffee before the standup.", 0.2, "minor"),
    ("User is a data scientist at FinCorp working on fraud detection with XGBoost.", 0.8, "work"),
]
DEMO_QUESTION = "Can you help me set up a new project?"


def _config(args: argparse.Namespace) -> MemoryConfig:
    overrides = {}
    if getattr(args, "data_dir", None):
        overrides["data_dir"] = Path(args.data_dir)
    return MemoryConfig(**overrides)


def _demo(args: argparse.Namespace, console: Console) -> int:
    with PraxMemory(_config(args)) as memory:
        for content, importance, tags in DEMO_FACTS:
            memory.remember(DEMO_USER, content, importance=importance, tags=tags)
        result = memory.recall_detailed(DEMO_USER, args.question, k=args.k, reinforce=False)
        block = format_memories(result.hits)
        if args.json:
            print(
                json.dumps(
                    {
                        "question": args.question,
                        "without_memory": "",
                        "with_memory": block,
                        "hits": [h.model_dump(mode="json") for h in result.hits],
                    },
                    indent=2,
                )
            )
            return 0
        console.print(
            f"[bold]Stored {len(DEMO_FACTS)} facts for[/] {DEMO_USER} in {memory.config.data_dir}"
        )
        console.print(f"[bold]Follow-up question:[/] {args.question}\n")
        console.print(Panel("(empty)", title="WITHOUT memory: the context the agent receives"))
        console.print(
            Panel(
                Text(block or "(nothing relevant)"),
                title=f"WITH memory: {len(result.hits)} facts recalled",
            )
        )
        table = Table(title="Why each memory ranked where it did")
        for col in ("#", "memory", "dense", "sparse", "fused", "decay", "boost", "score"):
            table.add_column(col)
        for i, h in enumerate(result.hits, 1):
            table.add_row(
                str(i),
                Text(h.memory.content[:60]),
                str(h.ranks.get("dense", "-")),
                str(h.ranks.get("sparse", "-")),
                f"{h.fused:.4f}",
                f"{h.decay:.3f}",
                f"{h.boost:.2f}",
                f"{h.score:.4f}",
            )
        console.print(table)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    parser = argparse.ArgumentParser(prog="prax-memory", description="Prax memory for agents")
    parser.add_argument(
        "--data-dir",
        help="data directory (default: MEMORY_DATA_DIR or the platform's user data dir)",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="store a few facts, recall them, print the agent context")
    demo.add_argument("--question", default=DEMO_QUESTION)
    demo.add_argument("-k", type=int, default=4)
    demo.add_argument("--json", action="store_true", help="machine-readable output")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``prax-memory``; returns the exit code (1 on a memory error)."""
    args = build_parser().parse_args(argv)
    console = Console()
    try:
        if args.command == "demo":
            return _demo(args, console)
    except PraxMemoryError as exc:
        console.print(f"[red]error:[/] {exc}")
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
