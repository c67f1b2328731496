"""Where fastamfm keeps what it converts once and reuses (METEOR resource tables, word-vector
caches, models converted from GGUF): ``$FASTAMFM_CACHE_DIR``, else
``$XDG_CACHE_HOME/fastamfm``, else ``~/.cache/fastamfm``."""
from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    env = os.environ.get("FASTAMFM_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "fastamfm"
