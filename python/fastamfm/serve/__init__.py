"""Scoring and rewards as a service: ``fastamfm serve`` (extra ``serve``: Starlette and
uvicorn), one process that keeps the models loaded and batches the requests of many
trainers and evaluation jobs (docs/serving.md).

- ``app``: the ASGI application (``create_app``) and its routes;
- ``batcher``: dynamic batching, the bounded queue;
- ``scoring``: a merged batch scored with the ``Pipeline`` and split back per request;
- ``payloads``: the request bodies, checked, with errors naming field and index;
- ``settings``: the limits and batching settings (``ServiceSettings``);
- ``prometheus``: ``GET /metrics``;
- ``command`` / ``server``: the command line and uvicorn's graceful shutdown.

The client (``fastamfm.client``) needs none of this: it speaks HTTP with the standard library.
"""
from __future__ import annotations

from .settings import ServiceSettings


def create_app(settings: ServiceSettings | None = None):
    """The ASGI app (needs starlette); run it with uvicorn, as ``fastamfm serve`` does."""
    from .app import create_app as create

    return create(settings)


__all__ = ["ServiceSettings", "create_app"]
