"""Build the plain-text TWCS airline corpus of the Deep AM-FM seed experiment: one turn a
line, a blank line between dialogues, customer and agent turns in their order.

Source: ``../shared/data/twcs_airlines/airlines_processed.csv.bz2`` (Customer Support on
Twitter, airline threads, already lowercased and tokenised as DSTC-6's data). Each row's
``first_utterance`` and ``context`` are ``<cust__ ... __cust>`` / ``<rep__ ... __rep>``
segments; consecutive segments of one speaker are joined. The placeholders are written
as DSTC-6 writes them (``__num__`` -> ``<NUMBERS>``, ``__twitter_at__`` -> ``<USER>``,
``__url__`` -> ``<URL>``, ``__email__`` -> ``<E-MAIL>``), the addressee and signature
marks (``__company__``, ``__cust__``, ``__initials__``) are dropped. Dialogues holding a
blocklisted utterance are dropped (and counted) here already; the trainer checks again.

Usage:  python3 benchmarks/run.py training twcs_corpus --dialogues 20000 --out /tmp/twcs.txt
The file is data derived from CC BY-NC-SA 4.0 material: never commit it.
"""
from __future__ import annotations

import argparse
import bz2
import csv
import re
import sys
from pathlib import Path

from benchmarks.shared_data import TWCS

DEFAULT_SOURCE = TWCS / "airlines_processed.csv.bz2"
SEGMENT = re.compile(r"<(cust|rep)__(.*?)__(?:cust|rep)>", re.S)
PLACEHOLDERS = {"__num__": "<NUMBERS>", "__twitter_at__": "<USER>", "__twitter_at___": "<USER>",
                "__url__": "<URL>", "__email__": "<E-MAIL>", "__money__": "<NUMBERS>"}
DROPPED = {"__company__", "__cust__", "__initials__"}


def clean(text: str) -> str:
    words = []
    for word in text.split():
        if word in DROPPED:
            continue
        words.append(PLACEHOLDERS.get(word, word))
    return " ".join(words)


def dialogues(source: Path):
    csv.field_size_limit(1 << 24)
    with bz2.open(source, "rt", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            turns, speaker = [], None
            for who, text in SEGMENT.findall(row["first_utterance"] + " " + row["context"]):
                text = clean(text)
                if not text:
                    continue
                if who == speaker:
                    turns[-1] += " " + text
                else:
                    turns.append(text)
                    speaker = who
            if len(turns) >= 2:
                yield turns


def write_corpus(out: Path, blocklist, *, source: Path = DEFAULT_SOURCE, dialogues_wanted: int | None = None,
                 turns_wanted: int | None = None) -> tuple:
    """Write the first kept dialogues to ``out`` until ``dialogues_wanted`` dialogues or
    ``turns_wanted`` turns are written; (kept, dropped by the blocklist, turns written)."""
    kept = dropped = turns = 0
    with open(out, "w", encoding="utf-8") as f:
        for dialogue in dialogues(source):
            if blocklist.blocks(dialogue):
                dropped += 1
                continue
            f.write("\n".join(dialogue) + "\n\n")
            kept += 1
            turns += len(dialogue)
            if (dialogues_wanted is not None and kept >= dialogues_wanted) or \
                    (turns_wanted is not None and turns >= turns_wanted):
                break
    return kept, dropped, turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--dialogues", type=int, default=20000, help="write the first N kept dialogues")
    parser.add_argument("--turns", type=int, help="stop once N turns are written (the learning curve's sizes)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--blocklist", help="default: the trainer's (FASTAMFM_BLOCKLIST or ../shared/data)")
    args = parser.parse_args()
    from fastamfm.training import Blocklist

    blocklist = Blocklist.resolve(args.blocklist)
    kept, dropped, turns = write_corpus(args.out, blocklist, source=args.source, dialogues_wanted=args.dialogues,
                                        turns_wanted=args.turns)
    print(f"{args.out}: {kept} dialogues, {turns} turns; {dropped} dropped (blocklist {blocklist.path})",
          file=sys.stderr)


if __name__ == "__main__":
    main()
