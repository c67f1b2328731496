"""Chat templates (Jinja, from a model's files) rendered in a sandbox with bounds: a
template can neither reach Python (Jinja's immutable sandbox refuses ``__class__`` and
the like) nor run for long (nested loops over ``range(100000)`` would take hours).

Every render gets a budget of steps and a deadline. A step is one iteration of any
``for`` loop (each loop's iterable is wrapped when the template is compiled), one call,
one attribute or item lookup; the deadline is checked at each step. Operators that can
build huge values at once (``*``, ``**``, ``%``, ``+``) are checked, and so is the size of
the output. A template that exceeds a bound, refuses its input (``raise_exception``) or
fails in any other way raises a ``ChatTemplateError``; nothing in it runs outside Jinja.
"""
from __future__ import annotations

import threading
import time

from jinja2 import nodes
from jinja2.exceptions import TemplateError
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

# Bounds of one render; a long dialogue context raises them in proportion (``render``).
MAX_STEPS = 1_000_000
MAX_SECONDS = 10.0
MAX_OUTPUT_CHARS = 4_000_000
_POWER_EXPONENT_LIMIT = 4096


class ChatTemplateError(ValueError):
    """A chat template that cannot be rendered: a syntax error, an escape attempt, a bound
    exceeded, or an error it raised itself."""


class TemplateRaised(ChatTemplateError):
    """The template's own ``raise_exception(message)``: it refuses the conversation."""


class _Budget(threading.local):
    steps = 0
    deadline = 0.0
    max_chars = MAX_OUTPUT_CHARS


_BUDGET = _Budget()


def _step() -> None:
    _BUDGET.steps -= 1
    if _BUDGET.steps < 0:
        raise ChatTemplateError("chat template: the render exceeds its step budget (a loop that runs too long)")
    if _BUDGET.steps % 1024 == 0 and time.monotonic() > _BUDGET.deadline:
        raise ChatTemplateError(f"chat template: the render exceeds its time limit of {MAX_SECONDS:g} s")


def bounded_iterable(iterable):
    """Every ``for`` loop of a compiled template iterates through this."""
    for item in iterable:
        _step()
        yield item


def _raise_exception(message):
    raise TemplateRaised(f"chat template: {message}")


class _BoundedSandbox(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**", "%", "+"})

    def call_binop(self, context, operator, left, right):
        _step()
        if operator == "**" and isinstance(right, int) and abs(right) > _POWER_EXPONENT_LIMIT:
            raise ChatTemplateError(f"chat template: exponent {right} is too large")
        if operator == "*":
            for value, times in ((left, right), (right, left)):
                if isinstance(value, (str, list, tuple)) and isinstance(times, int) \
                        and len(value) * times > _BUDGET.max_chars:
                    raise ChatTemplateError("chat template: a repeated value exceeds the output limit")
        result = super().call_binop(context, operator, left, right)
        if isinstance(result, (str, list, tuple)) and len(result) > _BUDGET.max_chars:
            raise ChatTemplateError("chat template: a value exceeds the output limit")
        return result

    def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 (Jinja's own signature)
        _step()
        return super().call(__context, __obj, *args, **kwargs)

    def getattr(self, obj, attribute):
        _step()
        return super().getattr(obj, attribute)

    def getitem(self, obj, argument):
        _step()
        return super().getitem(obj, argument)


def compile_template(source: str):
    """A bounded template of ``source`` (a ``ChatTemplateError`` if it does not compile)."""
    env = _BoundedSandbox(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.globals["raise_exception"] = _raise_exception
    try:
        tree = env.parse(source)
        for loop in tree.find_all(nodes.For):
            loop.iter = nodes.Call(nodes.ImportedName(f"{__name__}.bounded_iterable"), [loop.iter], [], None, None)
        return env.from_string(tree)
    except (TemplateError, RecursionError, MemoryError) as exc:
        raise ChatTemplateError(f"chat template: does not compile ({type(exc).__name__}: {exc})") from None


def render(template, input_chars: int = 0, **variables) -> str:
    """``template`` rendered with ``variables``, within the bounds (raised in proportion to
    ``input_chars``, the size of the text the variables hold)."""
    _BUDGET.steps = MAX_STEPS + 100 * input_chars
    _BUDGET.deadline = time.monotonic() + MAX_SECONDS
    _BUDGET.max_chars = MAX_OUTPUT_CHARS + 4 * input_chars
    out, size = [], 0
    try:
        for chunk in template.generate(**variables):
            size += len(chunk)
            if size > _BUDGET.max_chars:
                raise ChatTemplateError(f"chat template: the output exceeds {_BUDGET.max_chars} characters")
            _step()
            out.append(chunk)
    except ChatTemplateError:
        raise
    except Exception as exc:  # SecurityError, UndefinedError, TypeError... raised in the template
        raise ChatTemplateError(f"chat template: {type(exc).__name__}: {exc}") from None
    return "".join(out)
