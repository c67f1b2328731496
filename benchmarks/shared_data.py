"""Where the benchmarks find their data, and the readers every area shares.

Data: ``$FASTAMFM_SHARED_DATA`` or ``../shared/data`` beside the checkout
(DSTC-6's evaluation package, the twcs_airlines conversations); the benchmarks that
need it skip, or say why they cannot run, when it is absent.
"""
from __future__ import annotations

import bz2
import csv
import os
import re
from pathlib import Path

from benchmarks import REPO

SHARED_DATA = Path(os.environ.get("FASTAMFM_SHARED_DATA", REPO.parent / "shared" / "data"))
DSTC6 = SHARED_DATA / "dstc6_t2_evaluation"
TWCS = SHARED_DATA / "twcs_airlines"
TOPICAL_CHAT = SHARED_DATA / "topical_chat"
SYSTEMS = [f"S_{i}" for i in range(1, 21)]
REFERENCE_FILES = [DSTC6 / "references" / "original_refs.txt"] + [
    DSTC6 / "references" / f"refgen_result{i}.txt" for i in range(1, 11)]
SYSTEM_FILES = [DSTC6 / "hypotheses" / f"{s}.txt" for s in SYSTEMS]


def require(path: Path) -> Path:
    """``path`` when it exists, else a clear error naming it (for the table scripts)."""
    if not path.exists():
        raise SystemExit(f"{path} is absent: this benchmark needs ../shared/data beside the checkout "
                         f"(or FASTAMFM_SHARED_DATA)")
    return path


# --- DSTC-6 track 2 ------------------------------------------------------------------
def dstc6_references() -> list[list[str]]:
    """The 11 references of each of the 2000 DSTC-6 contexts (as nlg-eval reads them)."""
    from fastamfm.io import read_parallel_files

    return read_parallel_files(REFERENCE_FILES)


def dstc6_systems() -> dict[str, list[str]]:
    """The 20 systems' responses, {"S_1": [2000 lines], ...}."""
    from fastamfm.io import read_lines

    return {s: read_lines(path) for s, path in zip(SYSTEMS, SYSTEM_FILES)}


def read_tsv_table(path: Path) -> dict[str, dict[str, float]]:
    """A DSTC-6 results table (system column, then one column per metric) as
    {system: {column: value}}; empty cells are left out."""
    rows = [line.split("\t") for line in Path(path).read_text().splitlines() if line.strip()]
    header = rows[0]
    return {row[0]: {h: float(v) for h, v in zip(header[1:], row[1:]) if v.strip()} for row in rows[1:]}


def dstc6_objective() -> dict[str, dict[str, float]]:
    """The organisers' objective_evaluation_results.txt (BLEU, METEOR, ... per system)."""
    return read_tsv_table(DSTC6 / "objective_evaluation_results.txt")


def dstc6_human() -> dict[str, float]:
    """The mean human rating of each system."""
    return {s: v["score"] for s, v in read_tsv_table(DSTC6 / "human_evaluation_results.txt").items()}


# --- twcs_airlines, prepared as the DSTC-6 training text -----------------------------
# Placeholders of the processed TWCS text mapped to the DSTC-6 ones (__initials__,
# the agents' signatures, removed).
PLACEHOLDERS = {"__cust__": "<USER>", "__twitter_at__": "<USER>", "__twitter_at___": "<USER>",
                "__num__": "<NUMBERS>", "__money__": "<NUMBERS>", "__url__": "<URL>", "__email__": "<E-MAIL>",
                "__twitter_tag__": "<HASH_TAG>", "__initials__": ""}
_AGENT_TURN = re.compile(r"<rep__ (.*?) __rep>")


def dstc6_style_agent_turns(twcs_dir: Path = TWCS) -> list[str]:
    """Every agent turn of airlines_processed.csv.bz2 (first_utterance and context
    columns) with DSTC-6's placeholders: the public stand-in for the DSTC-6 Twitter
    training data, which was never redistributed (52,609 turns)."""
    turns = []
    with bz2.open(Path(twcs_dir) / "airlines_processed.csv.bz2", "rt", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            for column in ("first_utterance", "context"):
                for turn in _AGENT_TURN.findall(row[column]):
                    words = [PLACEHOLDERS.get(w, w) for w in turn.split()]
                    text = " ".join(w for w in words if w)
                    if text:
                        turns.append(text)
    return turns
