"""Build the AM-FM model shipped inside the package (``AMFM.default()``).

    python -m fastamfm.amfm.build_default_model --topical-chat ../shared/data/topical_chat \\
        --out python/fastamfm/data/default_model

Training data: every turn (``content[*].message``) of Amazon Topical-Chat's
``valid_freq``, ``valid_rare``, ``test_freq`` and ``test_rare`` splits (2,156
open-domain human-human conversations, ~47k turns; licence CDLA-Sharing-1.0, whose
share-alike terms do not apply to results of computational use such as this model).
The model is trained with the project's own trainers; nothing else goes into it.
NEVER build the shipped model from twcs_airlines (CC BY-NC-SA: tests and benchmarks only).

Settings (chosen for a general-purpose default, not tuned on any evaluation data):
- tokenizer ``amfm`` (NFKC, lowercase, punctuation removed except ' - %), so raw
  user text scores as the AM-FM toolkit would normalise it;
- LSI: raw counts (the toolkit's weighting), words seen at least ``MIN_COUNT`` times,
  at most ``MAX_VOCAB`` words, ``DIMS`` dimensions, seed 0;
- LM: ``ORDER``-gram, interpolated modified Kneser-Ney, n-grams pruned below a
  ``PRUNE`` change in probability (the threshold the AM-FM paper used with SRILM);
- scoring: λ = 0.5 (the toolkit's default), arithmetic mean, AM max and FM mean over
  references (the paper's choices).
These keep the model directory under ~15 MB.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

SPLITS = ("valid_freq", "valid_rare", "test_freq", "test_rare")
DIMS = 100
MIN_COUNT = 2
MAX_VOCAB = 20000
ORDER = 3
SMOOTHING = "kneser-ney"
PRUNE = 1e-6
TOKENIZE = "amfm"
LAM = 0.5

log = logging.getLogger(__name__)


def topical_chat_turns(directory) -> list[str]:
    """Every message of the four splits, in file and conversation order, one line each."""
    directory = Path(directory)
    turns: list[str] = []
    for split in SPLITS:
        path = directory / f"{split}.json"
        if not path.exists():
            raise FileNotFoundError(f"{path}: missing (expected the Topical-Chat splits {', '.join(SPLITS)})")
        with open(path, encoding="utf-8") as f:
            conversations = json.load(f)
        for conv_id, conv in conversations.items():
            for i, turn in enumerate(conv.get("content", [])):
                message = turn.get("message")
                if not isinstance(message, str):
                    raise ValueError(f"{path}: conversation {conv_id} turn {i}: no message text")
                message = " ".join(message.split())  # one line per turn
                if message:
                    turns.append(message)
    return turns


def build(topical_chat, out, *, workers: int = -1):
    from .scorer import AMFM

    start = time.perf_counter()
    turns = topical_chat_turns(topical_chat)
    log.info("%d Topical-Chat turns read", len(turns))
    scorer = AMFM.train(turns, dims=DIMS, weighting="counts", min_count=MIN_COUNT, max_vocab=MAX_VOCAB,
                        order=ORDER, smoothing=SMOOTHING, prune=PRUNE, seed=0, workers=workers, lam=LAM,
                        tokenize=TOKENIZE)
    scorer.save(out)
    size = sum(p.stat().st_size for p in Path(out).iterdir())
    log.info("trained in %.1f s; %s holds %.1f MB: %r", time.perf_counter() - start, out, size / 1e6, scorer)
    return scorer


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topical-chat", required=True, help="directory with the Topical-Chat json splits")
    parser.add_argument("--out", required=True, help="model directory to write")
    parser.add_argument("--workers", type=int, default=-1)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="fastamfm: %(message)s")
    build(args.topical_chat, args.out, workers=args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
