"""fastamfm.training: every trainer and recipe of fastamfm's trainable models, in one home.
Importing it needs neither torch nor transformers.

- the shared trainer: ``trainer`` (``train``, ``TrainingRun``; transformers' Trainer with
  atomic checkpoints, budgets, resume), ``settings``, ``checkpoints``, ``example_stream``,
  ``progress``, ``task`` (what a model must provide to be trained);
- the data: ``corpus`` (``DialogueCorpus``), ``corpus_formats``, ``dialogue_hashes``,
  ``blocklist`` (decontamination against the rated sets);
- the tasks: ``contrastive_task`` (sentence encoders), ``causal_lm_task`` (LMs, LoRA),
  ``evaluator_task`` with ``negatives``, ``corruption`` and ``turn_pool``;
- the recipes, one per kind of model written (``recipe``: the shape they share; found by the
  registry as entry points of ``fastamfm.recipes``): ``deep_amfm`` (DeepAMFM.train),
  ``evaluator`` (train_evaluator), ``fine_tuning`` (SentenceEncoder.fine_tune,
  NeuralLM.fine_tune); ``calibration`` (the scales measured after training, shared by
  both), ``provenance``; ``command`` (``fastamfm train --deep / --evaluator``).

Nothing below training imports it (``deep/``, ``neural/``, ``evaluator/`` hold the models it
trains; ``tests/test_import_graph.py``).

Corpus in::

    corpus = DialogueCorpus(["a.txt", "b.jsonl.bz2", "dstc10_layout.json"],
                            blocklist=None,        # the packaged DSTC-10 list (+ $FASTAMFM_BLOCKLIST);
                                                   # a path: added to it; False: none
                            held_out=0.02, max_held_out=400)
    counts = corpus.scan()        # CorpusCounts: dialogues read, dropped_blocklist, duplicates, held_out, ...
    corpus.training()             # iterator of Dialogue(turns, source, line), streamed, deduplicated
    corpus.held_out()             # the held-out slice (never trained on: for calibration / validation)

Formats (``corpus_formats``): plain text (one turn a line, blank line between dialogues),
jsonl ``{"turns": [...]}``, the DSTC-10 JSON layout; any ``.bz2``. Bad input is a
``fastamfm.FormatError`` with ``.path`` and ``.line``.

A model plugs in as a *task* (``task.TrainingTask``; no base class needed)::

    class MyTask:
        name = "evaluator"                   # checkpoint folder, progress label
        model = ...                          # a transformers PreTrainedModel or peft model
        def examples(self, dialogue): ...    # -> iterable of examples of one Dialogue
        def collate(self, examples): ...     # -> {tensors..., "num_tokens": int, "num_examples": int}
                                             #    (pure: no global RNG; seed from the batch)
        def loss(self, model, batch): ...    # -> scalar loss tensor

and is trained by::

    run = train(task, corpus, TrainingSettings(max_minutes=20, batch_size=32, learning_rate=3e-5,
                                               seed=0, precision="float32", device="auto"),
                directory="work/", resume=False)

``train`` returns a ``TrainingRun`` (steps, examples, tokens, seconds, tokens_per_second,
stopped_by, resumed_from, loss, device, precision, threads, peak_rss_mib); the trained
weights are in ``task.model``, which the caller saves in the form its scorer loads. The
run is seeded (examples stream, Trainer), deterministic on the CPU, bounded by
``max_steps``/``max_minutes``, checkpointed atomically to ``directory/<task.name>/``
(the last ``keep_checkpoints``) and resumable (``resume=True``) to the same final weights
after a SIGKILL. Seed the model's own initialisation (``set_seed``) before building it.

Output::

    write_provenance(out_dir, provenance(base_models=..., corpus=corpus, stages={"lm": run}, settings=...))
    write_checksums(out_dir)          # last: checksums.json over every file
    verify_directory(out_dir)         # before loading: FormatError naming a changed file
"""
from __future__ import annotations

from ..models.directory import (
           CHECKSUMS,
           PROVENANCE,
           verify_directory,
           write_checksums,
           write_provenance,
)
from .blocklist import Blocklist, default_blocklist_path, utterance_hash
from .corpus import CorpusCounts, Dialogue, DialogueCorpus
from .corpus_formats import FORMATS, corpus_format, read_dialogues
from .dialogue_hashes import DialogueHashSet, dialogue_hash
from .provenance import versions
from .settings import TrainingSettings
from .task import TrainingTask
from .trainer import TrainingRun, set_seed, train

__all__ = ["Blocklist", "CHECKSUMS", "CorpusCounts", "Dialogue", "DialogueCorpus", "DialogueHashSet", "FORMATS",
           "PROVENANCE", "TrainingRun", "TrainingSettings", "TrainingTask", "corpus_format", "default_blocklist_path",
           "dialogue_hash", "read_dialogues", "set_seed", "train", "utterance_hash",
           "verify_directory", "versions", "write_checksums", "write_provenance"]

from .. import _deprecated  # noqa: E402   (after the submodules it makes callable)

_deprecated.install_former_paths()
