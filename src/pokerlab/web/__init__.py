"""The web app: ``pokerlab serve`` runs :func:`create_app` under uvicorn (needs the ``web`` extra)."""

from __future__ import annotations

from typing import Any


def create_app(*args: Any, **kwargs: Any) -> Any:
    """:func:`pokerlab.web.app.create_app`, imported on first use (FastAPI is an optional dependency)."""
    from pokerlab.web.app import create_app as build

    return build(*args, **kwargs)
