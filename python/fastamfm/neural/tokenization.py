"""The Rust ``tokenizers`` tokenizer of a Hugging Face model directory, set up for
scoring: special tokens added, truncation at ``max_length``, no padding (batches are
padded later, to their own longest sentence), whole lists encoded in one parallel call."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import format_error
from ..models.safe_loading import (
    from_pretrained,
    load_or_format_error,
    read_json_object,
)


@dataclass(frozen=True)
class TokenizedSentences:
    """Token ids of m sentences, flat: sentence j is ``ids[offsets[j]:offsets[j+1]]``
    (special tokens included, so an empty sentence is ``[CLS] [SEP]`` for BERT)."""

    ids: np.ndarray        # int64[total]
    offsets: np.ndarray    # int64[m + 1]

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1


def default_max_length(directory: Path) -> int:
    """The longest input a sentence encoder of this directory reads: sentence-transformers'
    ``max_seq_length`` when the directory is a sentence-transformers model, else the
    tokenizer's ``model_max_length``, else the model's position table."""
    sentence_config = read_json_object(directory / "sentence_bert_config.json")
    if "max_seq_length" in sentence_config:
        return _positive_int(sentence_config, "max_seq_length", directory / "sentence_bert_config.json")
    return tokenizer_max_length(directory)


def _positive_int(config: dict, key: str, path: Path) -> int:
    value = config[key]
    if type(value) is not int or value < 1:
        raise format_error(path, f"{key} must be a positive integer, got {value!r}")
    return value


def tokenizer_max_length(directory: Path) -> int:
    """The tokenizer's ``model_max_length`` (what bert-score truncates at), bounded by the
    model's position table (tokenizer configs often say 1e30 for "no limit")."""
    config = read_json_object(directory / "config.json")
    positions = _positive_int(config, "max_position_embeddings", directory / "config.json") \
        if "max_position_embeddings" in config else 512
    limit = read_json_object(directory / "tokenizer_config.json").get("model_max_length")
    if isinstance(limit, (int, float)) and 0 < limit < positions:
        return int(limit)
    return positions


class SentenceTokenizer:
    """Text -> token ids with the model's own tokenizer (``tokenizer.json``; a directory
    holding only the older vocabulary files is converted once by ``transformers``)."""

    def __init__(self, directory: Path, max_length: int):
        from tokenizers import Tokenizer

        file = directory / "tokenizer.json"
        if file.is_file():
            tokenizer = load_or_format_error(lambda: Tokenizer.from_file(str(file)), file, "tokenizer")
        else:
            from ..runtime import import_transformers

            tokenizer = from_pretrained(import_transformers().AutoTokenizer, directory, "tokenizer",
                                        weights=False).backend_tokenizer
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length)
        self._tokenizer = tokenizer
        # A copy that keeps the end of a long text (a dialogue context's latest turns).
        self._keep_end = Tokenizer.from_str(tokenizer.to_str())
        self._keep_end.enable_truncation(max_length, direction="left")
        self.max_length = max_length

    def encode(self, texts: list, *, keep: str = "start") -> TokenizedSentences:
        """Token ids of ``texts``; a text longer than ``max_length`` keeps its ``start``
        (as sentence-transformers and bert-score truncate) or its ``end``."""
        tokenizer = self._keep_end if keep == "end" else self._tokenizer
        encodings = tokenizer.encode_batch(texts, add_special_tokens=True)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(encodings))
        offsets = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        ids = np.fromiter((i for e in encodings for i in e.ids), dtype=np.int64, count=int(offsets[-1]))
        return TokenizedSentences(ids, offsets)

    def special_ids(self) -> set:
        """Ids of the special tokens the tokenizer adds ([CLS], [SEP], <s>, </s>, ...)."""
        empty = self._tokenizer.encode("", add_special_tokens=True).ids
        return set(empty)
