"""A ``transformers`` tokenizer seen through the ``LMTokenizer`` protocol of
``dialogue_format``, loaded from a Hugging Face model directory."""
from __future__ import annotations

from pathlib import Path

from ..models.safe_loading import from_pretrained
from ..runtime import import_transformers


class HFTokenizer:
    """``LMTokenizer`` over a ``transformers`` fast tokenizer."""

    def __init__(self, tokenizer):
        self.hf = tokenizer
        self.special_tokens = tuple(dict.fromkeys(
            [t.content for t in tokenizer.added_tokens_decoder.values() if t.special] + list(tokenizer.all_special_tokens)))
        self.chat_template = getattr(tokenizer, "chat_template", None)
        self.bos_token = tokenizer.bos_token
        self.eos_token = tokenizer.eos_token

    @classmethod
    def load(cls, directory: Path) -> "HFTokenizer":
        return cls(from_pretrained(import_transformers().AutoTokenizer, directory, "tokenizer", weights=False))

    def encode_batch(self, texts: list, *, special: bool) -> list:
        if not texts:
            return []
        return self.hf(list(texts), add_special_tokens=False, split_special_tokens=not special)["input_ids"]

    def token_id(self, text: str) -> int | None:
        ids = self.hf.convert_tokens_to_ids([text])
        unk = self.hf.unk_token_id
        if not ids or ids[0] is None or (ids[0] == unk and text != self.hf.unk_token):
            return None
        return int(ids[0])

    def __len__(self) -> int:
        return len(self.hf)
