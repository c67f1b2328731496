"""Speaker tags: some data sets put one before every turn ("User: ", "System: "). The
evaluator removes a leading tag from every turn and response before encoding it: the
training dialogues have none, and a tag the encoder never saw beside them would only pull
every turn of such a set towards every other."""
from __future__ import annotations

import re

# "User:", "System:", "Human:", "Bot:", "Assistant:", "Speaker 1:", "A:", "B:" at the start of a turn.
_SPEAKER_TAG = re.compile(r"^\s*(?:user|system|human|bot|assistant|speaker\s*\d*|[ab])\s*:\s*", re.IGNORECASE)


def strip_speaker(turn: str) -> str:
    """``turn`` without a leading speaker tag and surrounding whitespace."""
    return _SPEAKER_TAG.sub("", turn, count=1).strip()
