"""Build the packaged decontamination blocklist from the shared data's list.

    python -m fastamfm.training.build_blocklist ../shared/data/dstc10_blocklist [--out FILE]

reads ``DIR/utterances.sha256`` (one SHA-256 hex digest per line: every utterance of the
DSTC-10 rated sets) and writes its derived form, ``fastamfm/data/dstc10_blocklist.bin`` by
default: the digests' first bytes, sorted, with a header naming the source's SHA-256 (see
``blocklist``). The source list itself is never copied into the package.
``tests/test_blocklist.py`` checks that the packaged file blocks exactly what the source
list blocks, whenever the shared data is there.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..io.atomic import write_text_atomic
from .blocklist import PACKAGED, packed, read_hex_list, read_packed

SOURCE_NAME = "utterances.sha256"


def build_blocklist(source, out=PACKAGED) -> Path:
    """Write the packaged form of the list at ``source`` (the file, or the directory
    holding ``utterances.sha256``) to ``out``; returns ``out``."""
    source = Path(source)
    if source.is_dir():
        source = source / SOURCE_NAME
    hashes, digest = read_hex_list(source)
    if not hashes:
        raise ValueError(f"{source}: no hash in the list")
    out = Path(out)
    write_text_atomic(out, packed(hashes, digest))
    prefixes, _ = read_packed(out)
    if len(prefixes) != len(hashes):
        raise ValueError(f"{source}: {len(hashes)} hashes share prefixes ({len(prefixes)} distinct): "
                         f"the packaged form would block more than the list")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fastamfm.training.build_blocklist",
                                     description="derive the packaged decontamination blocklist")
    parser.add_argument("source", help=f"the directory holding {SOURCE_NAME} (or the file itself)")
    parser.add_argument("--out", default=str(PACKAGED), help="the file to write (default: the package's)")
    args = parser.parse_args(argv)
    try:
        out = build_blocklist(args.source, args.out)
    except (OSError, ValueError) as exc:
        print(f"build_blocklist: error: {exc}", file=sys.stderr)
        return 1
    prefixes, header = read_packed(out)
    print(f"wrote {out}: {len(prefixes)} hashes ({out.stat().st_size} bytes), source sha256 "
          f"{header['source_sha256']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
