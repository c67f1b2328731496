"""``TrainingProgress``: a progress bar (tqdm when installed, else a log line every 30 s)
with steps, tokens/s, examples/s, the loss and the ETA of the budget; or, where the
progress option (``fastamfm.progress``: ``TrainingSettings.progress``, or the option of
the call it runs in) is a callable, a ``ProgressUpdate`` per optimizer step."""
from __future__ import annotations

import logging
import sys
import time

from ..progress import ProgressOption, ProgressUpdate, bar_width, checked, current_depth, current_option

log = logging.getLogger(__name__)


def _clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class TrainingProgress:
    def __init__(self, label: str, *, max_steps: int | None, max_minutes: float | None, enabled: ProgressOption,
                 start_step: int = 0, elapsed_before: float = 0.0):
        self.label = label
        self.max_steps = max_steps
        self.max_seconds = None if max_minutes is None else 60.0 * max_minutes
        self.start_step = start_step
        self.elapsed_before = elapsed_before
        self.started = time.monotonic()
        self.last_log = 0.0
        self.bar = None
        option = checked(enabled)
        if option is True or option is None:      # the settings' default: the caller's option decides
            option = True if current_option() is None else current_option()
        self.callback = option if callable(option) and not isinstance(option, bool) else None
        self.depth = current_depth()
        self.enabled = option is True
        if self.enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                pass
            else:
                self.bar = tqdm(total=max_steps, initial=start_step, desc=label, unit="step", file=sys.stderr,
                                bar_format="{desc}: {n_fmt}/{total_fmt} steps [{elapsed}] {postfix}"
                                if max_steps is None else None, **bar_width())

    def eta(self, step: int, elapsed: float) -> float | None:
        """Seconds left: to max_steps at the rate of this session, or to max_minutes, whichever is sooner."""
        left = []
        done = step - self.start_step
        session = elapsed - self.elapsed_before
        if self.max_steps is not None and done > 0:
            left.append((self.max_steps - step) * session / done)
        if self.max_seconds is not None:
            left.append(self.max_seconds - elapsed)
        return max(0.0, min(left)) if left else None

    def update(self, step: int, elapsed: float, tokens: int, examples: int, loss: float | None) -> None:
        if self.callback is not None:
            self.callback(ProgressUpdate(self.label, step, self.max_steps, "step", self.depth))
            return
        session = max(elapsed - self.elapsed_before, 1e-9)
        eta = self.eta(step, elapsed)
        facts = {"tok/s": f"{tokens / session:.0f}", "ex/s": f"{examples / session:.1f}",
                 "loss": "-" if loss is None else f"{loss:.4f}", "ETA": "?" if eta is None else _clock(eta)}
        if self.bar is not None:
            self.bar.n = step
            self.bar.set_postfix(facts, refresh=False)
            self.bar.refresh()
            return
        now = time.monotonic()
        if self.enabled and now - self.last_log >= 30:
            self.last_log = now
            total = "" if self.max_steps is None else f"/{self.max_steps}"
            log.info("%s: step %d%s, %s", self.label, step, total, ", ".join(f"{k} {v}" for k, v in facts.items()))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
