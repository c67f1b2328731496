"""Which registered metrics can run here: METEOR needs its resources, the neural metrics
torch and transformers; the learned metric needs a fitted scorer (tests/test_learned.py) and
the evaluator a trained evaluator directory (tests/test_evaluator.py); the metrics that need
the dialogue contexts (the LM judges: tests/test_followup.py, tests/test_lm_judge.py) cannot
score the reference-only batches of the tests that run every metric."""
from __future__ import annotations

NEURAL_METRICS = ("deep_am", "bertscore", "deep_fm", "deep_amfm")


def meteor_available() -> bool:
    from fastamfm import meteor_resources

    try:
        meteor_resources.locate()
    except meteor_resources.MeteorResourcesNotFound:
        return False
    return True


def deep_available() -> bool:
    from fastamfm.runtime import missing_reason

    return missing_reason() is None


def runnable_metric_names() -> list:
    """Every registered metric that runs from options alone here, chunk by chunk (Self-BLEU,
    a property of the whole set, is left out: tests/test_self_bleu.py scores it)."""
    from fastamfm import registry

    return [n for n in registry.names() if n not in ("learned", "evaluator") and (n != "meteor" or meteor_available())
            and (n not in NEURAL_METRICS or deep_available())
            and not getattr(registry.metric_class(n), "whole_set", False) and not registry.metric_class(n).needs_contexts]
