"""Fine-tuning a ``SentenceEncoder``'s model on dialogues.

Objective (the modern form of the Deep AM-FM seed's next-sentence prediction): a turn
and the reply that follows it are pulled together, other replies pushed apart, by a
cross-entropy over scaled cosine similarities (multiple-negatives ranking, temperature
``temperature``): each turn against every reply of the batch (in-batch negatives) and
against one more turn of the same dialogue that does not answer it (a same-dialogue
negative: same topic and style, wrong place). Sentences are pooled exactly as the scorer
pools them (``SentenceEncoder`` pooling, layer, L2 normalisation), so the cosine trained
is the cosine scored.

Where the base model has a masked-LM head (``*ForMaskedLM`` / ``*ForPreTraining`` in its
config, as BERT checkpoints do; all-MiniLM-L6-v2 has none), masked-LM continued
pre-training on the batch's replies is added to the loss (``mlm_weight``), as the seed
continued BERT's pre-training; the masking is seeded by the batch's own tokens.

Written here rather than with sentence-transformers' trainer: the loss is ten lines, and
sentence-transformers' pooling has no "sum" pooling nor a choice of layer, which the
scorer has; the speed beside a plain sentence-transformers loop is measured in
``benchmarks/training/compare.py``.
"""
from __future__ import annotations

import hashlib
import random
import shutil
from pathlib import Path

# Tokens read per sentence while training (turns are short; scoring reads up to the model's limit).
TRAIN_MAX_LENGTH = 64
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".h5", ".onnx", ".msgpack", ".ot", ".pt")


def has_mlm_head(directory: Path) -> bool:
    import json

    architectures = json.loads((Path(directory) / "config.json").read_text()).get("architectures") or []
    return any(a.endswith(("ForMaskedLM", "ForPreTraining")) for a in architectures)


class ContrastiveTask:
    name = "encoder"

    def __init__(self, directory: Path, *, pooling: str, layer: int, normalize: bool, temperature: float = 0.05,
                 mlm: bool = True, mlm_weight: float = 1.0, mlm_probability: float = 0.15, seed: int = 0,
                 max_length: int = TRAIN_MAX_LENGTH):
        from ..neural.tokenization import SentenceTokenizer
        from ..runtime import import_transformers

        transformers = import_transformers()
        self.directory = Path(directory)
        self.mlm = bool(mlm) and has_mlm_head(self.directory)
        loader = transformers.AutoModelForMaskedLM if self.mlm else transformers.AutoModel
        self.model = loader.from_pretrained(str(self.directory), local_files_only=True).float()
        self.body = self.model.base_model if self.mlm else self.model
        self.tokenizer = SentenceTokenizer(self.directory, max_length)
        self.pad_id = int(self.model.config.pad_token_id or 0)
        self.mask_id = transformers.AutoTokenizer.from_pretrained(
            str(self.directory), local_files_only=True).mask_token_id if self.mlm else None
        self.specials = self.tokenizer.special_ids()
        self.pooling, self.layer, self.normalize = pooling, layer, normalize
        self.temperature, self.mlm_weight, self.mlm_probability = temperature, mlm_weight, mlm_probability
        self.seed = seed

    # --- examples ------------------------------------------------------------------------
    def examples(self, dialogue):
        """(turn, reply, same-dialogue negative) for each reply of the dialogue; the negative
        is a turn neither the reply nor the turn itself (none in a two-turn dialogue)."""
        turns = list(dialogue.turns)
        rng = random.Random(hashlib.sha1("\x00".join(turns).encode("utf-8", "surrogatepass")).digest())
        for i in range(1, len(turns)):
            others = [t for j, t in enumerate(turns) if j not in (i - 1, i) and t != turns[i]]
            yield turns[i - 1], turns[i], (rng.choice(others) if others else None)

    # --- batches -------------------------------------------------------------------------
    def _pad(self, texts: list):
        import torch

        tokens = self.tokenizer.encode(texts)
        lengths = tokens.lengths
        ids = torch.full((len(texts), int(lengths.max())), self.pad_id, dtype=torch.long)
        mask = torch.zeros_like(ids)
        for row in range(len(texts)):
            n = int(lengths[row])
            ids[row, :n] = torch.from_numpy(tokens.ids[tokens.offsets[row]:tokens.offsets[row + 1]])
            mask[row, :n] = 1
        return ids, mask

    def collate(self, examples: list) -> dict:
        import torch

        anchors, replies = [e[0] for e in examples], [e[1] for e in examples]
        negatives = [e[2] for e in examples if e[2] is not None]
        batch = {}
        batch["anchor_ids"], batch["anchor_mask"] = self._pad(anchors)
        batch["reply_ids"], batch["reply_mask"] = self._pad(replies + negatives)
        tokens = int(batch["anchor_mask"].sum() + batch["reply_mask"].sum())
        if self.mlm:
            ids, mask = self._pad(replies)
            generator = torch.Generator().manual_seed(
                int.from_bytes(hashlib.sha1(ids.numpy().tobytes()).digest()[:8], "little") ^ self.seed)
            draws = torch.rand(ids.shape, generator=generator)
            eligible = mask.bool()
            for special in self.specials:
                eligible &= ids != special
            chosen = (draws < self.mlm_probability) & eligible
            # A short turn may draw no token: mask its likeliest one, so every reply teaches something.
            empty = ~chosen.any(1) & eligible.any(1)
            best = torch.where(eligible, draws, torch.full_like(draws, -1.0)).argmax(1)
            chosen[empty, best[empty]] = True
            labels = torch.where(chosen, ids, torch.full_like(ids, -100))
            assert self.mask_id is not None, "MLM needs a tokenizer with a mask token"   # set when mlm
            batch["mlm_ids"] = torch.where(chosen, torch.full_like(ids, self.mask_id), ids)
            batch["mlm_mask"], batch["mlm_labels"] = mask, labels
            tokens += int(mask.sum())
        batch["num_tokens"], batch["num_examples"] = tokens, len(examples)
        return batch

    # --- loss ----------------------------------------------------------------------------
    def _sentence_vectors(self, ids, mask):
        from ..neural.pooling import pool_sentences

        last = self.layer in (-1, self.body.config.num_hidden_layers)
        out = self.body(input_ids=ids, attention_mask=mask, output_hidden_states=not last)
        hidden = out.last_hidden_state if last else out.hidden_states[self.layer]
        return pool_sentences(hidden, mask, self.pooling, self.normalize)

    def loss(self, model, batch: dict):
        import torch

        anchors = self._sentence_vectors(batch["anchor_ids"], batch["anchor_mask"])
        replies = self._sentence_vectors(batch["reply_ids"], batch["reply_mask"])
        if not self.normalize:     # the cosine is what is scored, whatever the stored vectors
            anchors = torch.nn.functional.normalize(anchors, dim=-1)
            replies = torch.nn.functional.normalize(replies, dim=-1)
        logits = anchors @ replies.T / self.temperature
        loss = torch.nn.functional.cross_entropy(logits, torch.arange(len(anchors), device=logits.device))
        if self.mlm:
            mlm = model(input_ids=batch["mlm_ids"], attention_mask=batch["mlm_mask"], labels=batch["mlm_labels"])
            loss = loss + self.mlm_weight * mlm.loss
        return loss

    # --- output --------------------------------------------------------------------------
    def save(self, out: Path) -> None:
        """The trained encoder as a model directory ``SentenceEncoder.load`` reads: the
        weights, and the base directory's tokenizer and sentence-transformers files."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        for path in self.directory.rglob("*"):
            relative = path.relative_to(self.directory)
            if path.is_file() and not path.name.endswith(_WEIGHT_SUFFIXES) and path.name != "config.json" \
                    and not relative.parts[0].startswith(".") and not path.name.endswith(".md"):
                (out / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, out / relative)
        self.model.save_pretrained(str(out))
