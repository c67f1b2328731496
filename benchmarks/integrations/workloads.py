"""The reward-function call TRL makes, on DSTC-6 responses, shared by bench.py and
compare.py.

TRL's GRPO/RLOO trainers call each reward function once per generation batch as
``f(prompts=..., completions=..., completion_ids=..., **columns, trainer_state=...,
log_extra=..., log_metric=...)``. Here: 64 conversational completions (DSTC-6 responses
drawn from all 20 systems) of one-turn prompts, each with 4 references in the dataset's
``references`` column, scored by the packaged AM-FM model.
"""
from __future__ import annotations

from benchmarks.amfm.workloads import reward_batches
from benchmarks.shared_data import dstc6_references, dstc6_systems

SIZE, N_REFS = 64, 4


def reward_batch() -> tuple:
    """(hyps, refs): 64 DSTC-6 responses x 4 references (the amfm area's reward batch)."""
    return reward_batches(dstc6_systems(), dstc6_references(), count=1, size=SIZE, n_refs=N_REFS)[0]


def trl_call(hyps: list, refs: list, *, conversational: bool = True) -> dict:
    """The keyword arguments of TRL's call for this batch (4 completions per prompt)."""
    prompts = [f"prompt {i // 4}: how can i help you today ?" for i in range(len(hyps))]
    if conversational:
        prompts = [[{"role": "user", "content": p}] for p in prompts]
        completions = [[{"role": "assistant", "content": h}] for h in hyps]
    else:
        completions = list(hyps)
    return {"prompts": prompts, "completions": completions,
            "completion_ids": [list(range(len(h.split()))) for h in hyps], "references": refs,
            "trainer_state": None, "log_extra": lambda *args, **kwargs: None, "log_metric": lambda name, value: None}
