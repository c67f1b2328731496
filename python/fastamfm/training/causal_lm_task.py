"""Fine-tuning a ``NeuralLM``'s model on dialogues: causal-LM loss on each reply given the
turns before it, formatted exactly as the scorer formats them (``dialogue_format``: the
same chat template, the same start-truncated context), so what the LM learns is what
``NeuralLM.score(response, contexts=...)`` asks it. The loss covers the reply's tokens
and its end-of-turn token (the context is not a target).

``CausalLMTask`` is a ``fastamfm.training`` task. Full fine-tuning or LoRA (``peft``,
``lora_rank``; the adapters are merged into the weights when saving, so the saved
directory is a plain model that every engine loads).
"""
from __future__ import annotations

import warnings
from dataclasses import replace

from ..neural.dialogue_format import DialogueFormat

# Reply tokens kept per example (longer replies are cut at the end): the loss of a few
# dozen tokens says as much about the domain, and padding stays small.
MAX_REPLY_TOKENS = 64
# Context tokens kept per training example (the most recent turns, as scoring truncates).
# Scoring still reads up to the scorer's own limit (512); training on the last 64 tokens
# spends the step on the reply instead of on a long prefix that is not a target. Measured
# (benchmarks/training/README.md, `defaults --stage lm`, 7 minutes each on two CPU cores, the
# shared dialogues): 85 / 56 / 36 LoRA steps for 64 / 128 / 256 context tokens, held-out mean
# ln p per reply token given the full context -3.177 / -3.211 / -3.264 (frozen -3.927).
TRAINING_CONTEXT_TOKENS = 64


class CausalLMTask:
    name = "lm"

    def __init__(self, model, tokenizer, settings, *, max_context_tokens: int = TRAINING_CONTEXT_TOKENS,
                 max_reply_tokens: int = MAX_REPLY_TOKENS, max_examples_per_dialogue: int | None = None):
        """``model``: a transformers causal LM (or a peft model over one); ``tokenizer``: an
        ``LMTokenizer`` (``hf_tokenizer.HFTokenizer``); ``settings``: the scorer's
        ``FormatSettings`` (the end-of-turn token is added as a target whatever it says)."""
        self.model = model
        self.format = DialogueFormat(tokenizer, replace(settings, end_token=True,
                                                        max_context_tokens=min(settings.max_context_tokens,
                                                                               max_context_tokens)))
        self.pad_id = tokenizer.token_id(tokenizer.eos_token) if tokenizer.eos_token else 0
        self.max_reply_tokens = max_reply_tokens
        self.max_examples = max_examples_per_dialogue

    def examples(self, dialogue):
        """(prefix ids, target ids) of every reply of the dialogue after its first turn."""
        turns = list(dialogue.turns)
        picks = range(1, len(turns))
        if self.max_examples is not None and len(picks) > self.max_examples:
            picks = picks[-self.max_examples:]
        replies = [turns[i] for i in picks]
        contexts = [turns[:i] for i in picks]
        for request in self.format.requests(replies, contexts):
            target = request.target
            if len(target) > self.max_reply_tokens:
                target = target[:self.max_reply_tokens]
            yield request.prefix, target

    def collate(self, examples: list) -> dict:
        import torch

        width = max(len(p) + len(t) for p, t in examples)
        ids = torch.full((len(examples), width), self.pad_id, dtype=torch.long)
        labels = torch.full((len(examples), width), -100, dtype=torch.long)
        mask = torch.zeros((len(examples), width), dtype=torch.long)
        tokens = 0
        for row, (prefix, target) in enumerate(examples):
            n = len(prefix) + len(target)
            ids[row, :n] = torch.tensor(prefix + target)
            labels[row, len(prefix):n] = torch.tensor(target)
            mask[row, :n] = 1
            tokens += n
        return {"input_ids": ids, "attention_mask": mask, "labels": labels, "num_tokens": tokens,
                "num_examples": len(examples)}

    def loss(self, model, batch: dict):
        """Mean cross-entropy of the target tokens (as the model's own ``labels=`` loss), with
        the vocabulary projection computed only where a target is predicted: the context
        positions, most of a batch, skip the largest matrix product and its [tokens, vocab]
        logits (measured: about half the step's memory on SmolLM2)."""
        import torch

        causal = model.get_base_model() if hasattr(model, "get_base_model") else model
        hidden = causal.base_model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
                                   ).last_hidden_state
        targets = batch["labels"][:, 1:]
        chosen = targets != -100
        logits = causal.get_output_embeddings()(hidden[:, :-1][chosen])
        return torch.nn.functional.cross_entropy(logits.float(), targets[chosen])


def with_lora(model, rank: int, *, seed: int):
    """``model`` wrapped in LoRA adapters of ``rank`` on every linear layer but the output
    projection (peft); the base weights are frozen."""
    try:
        import peft
    except ImportError:
        raise ImportError('LoRA fine-tuning needs peft: pip install ".[train]" in the fastamfm checkout') from None
    from ..runtime import import_transformers

    import_transformers().set_seed(seed)
    config = peft.LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.0, target_modules="all-linear",
                             task_type="CAUSAL_LM")
    with warnings.catch_warnings():
        # peft probes the model's deprecated ``is_gradient_checkpointing`` alias; the notice
        # is about peft's code, not anything a user can change.
        warnings.filterwarnings("ignore", message="`is_gradient_checkpointing` is deprecated", category=FutureWarning)
        return peft.get_peft_model(model, config)


def plain_model(model):
    """The trained model without peft wrappers (LoRA merged into the weights)."""
    if hasattr(model, "merge_and_unload"):
        return model.merge_and_unload()
    return model

