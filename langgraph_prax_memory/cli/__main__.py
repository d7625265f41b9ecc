"""``python -m langgraph_prax_memory.cli``: the ``prax-memory`` command."""

import sys

from langgraph_prax_memory.cli import main

sys.exit(main())
