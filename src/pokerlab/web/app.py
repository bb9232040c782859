"""The FastAPI application: the static page, the JSON API and the limits every request runs under.

Every computing endpoint has a plain form (``POST /api/equity``: one JSON object, the CLI's ``--json``) and,
where work can take seconds, a streamed form (``POST /api/equity/stream``: one JSON object per line, progress
lines first, then ``{"result": ...}`` or ``{"error": ..., "status": ...}``). The page uses the streamed forms so
it can draw progress and stop a job by closing the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib.resources import files
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles

from pokerlab import __version__
from pokerlab.errors import InvalidArgumentError, InvalidPayoutsError, PokerlabError
from pokerlab.web.guard import RequestGuard
from pokerlab.web.jobs import JobFailedError, JobTimeoutError, QueueFullError, WorkerPool
from pokerlab.web.messages import validation_message
from pokerlab.web.postflop import (
    MAX_MEMORY,
    UPLOAD_BYTES,
    PostflopKeyRequest,
    PostflopNodeRequest,
    PostflopOpenRequest,
    PostflopReportRequest,
    PostflopRequest,
    SolveStore,
    check_upload,
    postflop_estimate,
    postflop_limits,
    receive_upload,
    report_limits,
    requested_spot_hash,
    upload_too_large,
)
from pokerlab.web.prechecks import PRECHECKS, load_prechecks
from pokerlab.web.schemas import (
    EquityRequest,
    FullRingChartRequest,
    HandEquityRequest,
    ICMRequest,
    PushFoldRequest,
    RangeRequest,
    SolveRequest,
    StacksRequest,
    TwoRoundRequest,
)

STATIC = files("pokerlab.web") / "static"


@dataclass(frozen=True)
class Limits:
    """What one request may ask for. Over a limit the answer is a 422 that says what to change."""

    job_seconds: float = 20.0  # wall time of any job in a worker (exact enumeration, ICM, solving)
    sampling_seconds: float = 10.0  # the most a client may ask for with ``time``
    trials: int = 200_000_000  # Monte Carlo showdowns
    icm_samples: int = 100_000_000
    icm_places_players: int = 300  # finish-place matrix: n x paid places, a few seconds at 2,000 players
    icm_bubble_players: int = 60  # bubble factors: n (n - 1) exact ICM runs
    solve_iterations: int = 1_000_000
    solve_seconds: float = 60.0  # solving and push/fold
    two_round_stack: int = 6  # the real game's stack: its betting tree has 2,168 nodes
    two_round_buckets: int = 1000
    two_round_checks: int = 20
    # exact best responses, in node-boards (one round-2 betting node on one flop): one measurement at stack 6
    # (12.4 M, about 25 s on a quiet core), or a 14-point curve at stack 3
    two_round_node_boards: int = 12_500_000
    two_round_node_boards_per_second: float = 150_000.0  # a slow rate (a loaded core), for the time limit only
    request_bytes: int = 1_000_000  # a body: 20,000 stacks as JSON take about 200 KB
    upload_bytes: int = UPLOAD_BYTES  # a saved postflop solve uploaded (streamed to disk, not parsed)


@dataclass(frozen=True)
class Settings:
    """Server settings: worker processes, waiting-line length, result cache size and the request limits."""

    workers: int = 2
    max_queue: int = 32
    cache_size: int = 1024
    warm: bool = True
    workers_delay_s: float = 2.0  # the workers start after the first answer, or this long after the app at most
    limits: Limits = Limits()
    allowed_hosts: tuple[str, ...] = ()  # the Host headers answered (empty: any; `pokerlab serve` sets them)


class _ResultCache:
    """Answers of deterministic requests (exact results, or sampled with a seed), least recently used out."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.entries: OrderedDict[str, Any] = OrderedDict()
        self.hits = 0

    def get(self, key: str) -> Any | None:
        value = self.entries.get(key)
        if value is not None:
            self.entries.move_to_end(key)
            self.hits += 1
        return value

    def put(self, key: str, value: Any) -> None:
        if self.size <= 0:
            return
        self.entries[key] = value
        self.entries.move_to_end(key)
        while len(self.entries) > self.size:
            self.entries.popitem(last=False)


def _refuse(message: str) -> None:
    raise InvalidArgumentError(message)


def _check_seconds(value: float | None, most: float) -> None:
    if value is not None and math.isfinite(value) and value > most:
        _refuse(f"time {value:g} s is over this server's limit of {most:g} s per request; ask for at most {most:g}")


def _equity_limits(body: EquityRequest, limits: Limits) -> float:
    if body.trials is not None and body.trials > limits.trials:
        _refuse(f"trials {body.trials:,} is over this server's budget of {limits.trials:,} showdowns per request; "
                "ask for fewer, or give a time or stderr target instead")
    _check_seconds(body.time, limits.sampling_seconds)
    return limits.job_seconds if body.time is None else min(limits.job_seconds, body.time + 5.0)


def _hand_equity_limits(body: HandEquityRequest, limits: Limits) -> float:
    if body.player >= len(body.players):
        _refuse(f"player {body.player} is not one of the {len(body.players)} players (0 to {len(body.players) - 1})")
    return limits.job_seconds


def _icm_limits(body: ICMRequest, limits: Limits) -> float:
    spec = body.payouts.strip()
    if spec.lower().startswith("file:") or spec.lower().endswith(".csv"):
        raise InvalidPayoutsError("the server reads no files: give the payouts as numbers (50,30,20), a split "
                                  "(65/35) or a rule (power:a=1,pool=1000,paid=40)")
    n = len(body.stacks)
    if body.places and n > limits.icm_places_players:
        _refuse(f"finish places are limited to {limits.icm_places_players} players on this server ({n} given); "
                "turn places off for bigger fields")
    if body.bubble_factors and n > limits.icm_bubble_players:
        _refuse(f"bubble factors are limited to {limits.icm_bubble_players} players on this server ({n} given; "
                "they need n(n-1) ICM runs); turn them off for bigger fields")
    if body.samples is not None and body.samples > limits.icm_samples:
        _refuse(f"samples {body.samples:,} is over this server's budget of {limits.icm_samples:,}; ask for fewer, "
                "or give a time or half-width target instead")
    if body.bounty is not None and n > limits.icm_places_players:
        _refuse(f"knockout bounties are limited to {limits.icm_places_players} players on this server ({n} given)")
    _check_seconds(body.time, limits.sampling_seconds)
    return limits.job_seconds if body.time is None else min(limits.job_seconds, body.time + 5.0)


def _check_iterations(iterations: int | None, limits: Limits, instead: str) -> None:
    if iterations is not None and iterations > limits.solve_iterations:
        _refuse(f"iterations {iterations:,} is over this server's budget of {limits.solve_iterations:,}; "
                f"ask for fewer, or give {instead} instead")


def _check_between_one_and(name: str, value: int, most: int, after: str) -> None:
    if not 1 <= value <= most:
        _refuse(f"{name} {value} is outside this server's range of 1 to {most}{after}")


def _solve_limits(body: SolveRequest, limits: Limits) -> float:
    _check_iterations(body.iterations, limits, "a time or target exploitability")
    _check_seconds(body.time, limits.solve_seconds)
    return limits.solve_seconds + 5.0


def _two_round_limits(body: TwoRoundRequest, limits: Limits) -> float:
    from pokerlab.web.solving import two_round_best_response_work

    _check_between_one_and("stack", body.stack, limits.two_round_stack, " chips behind the ante")
    _check_between_one_and("buckets", body.buckets, limits.two_round_buckets,
                           " (0, no abstraction, is for `pokerlab two-round train --buckets 0`)")
    _check_between_one_and("checks", body.checks, limits.two_round_checks, " exploitability measurements")
    _check_iterations(body.iterations, limits, "a time")
    _check_seconds(body.time, limits.solve_seconds)
    work = two_round_best_response_work(body.stack, body.checks)
    if work > limits.two_round_node_boards:
        _refuse(f"{body.checks} exact exploitability measurements at stack {body.stack} are {work:,} node-boards of "
                f"best response, over this server's budget of {limits.two_round_node_boards:,}; ask for fewer "
                "checks or a smaller stack")
    return limits.solve_seconds + 5.0 + work / limits.two_round_node_boards_per_second


def _pushfold_limits(body: PushFoldRequest, limits: Limits) -> float:
    _check_iterations(body.iterations, limits, "a time or target gain")
    _check_seconds(body.time, limits.solve_seconds)
    from pokerlab.pushfold.fgs import MAX_FGS_DEPTH, fgs_seconds_estimate

    seconds = 0.0
    if 0 < body.fgs_depth <= MAX_FGS_DEPTH:  # FGS's payoffs are built before the solve, whatever its time limit
        seconds = fgs_seconds_estimate(len(body.stacks), body.fgs_depth)
        if seconds > limits.solve_seconds:
            _refuse(f"FGS depth {body.fgs_depth} at {len(body.stacks)} seats takes about {seconds:,.0f} s, over this "
                    f"server's limit of {limits.solve_seconds:g} s per request; ask for a smaller FGS depth")
    return limits.solve_seconds + 5.0 + seconds


LIMIT_WORDS = {
    "job_seconds": "seconds any job may run in a worker",
    "sampling_seconds": "the most `time` a Monte Carlo request may ask for",
    "trials": "Monte Carlo showdowns per equity request",
    "icm_samples": "Monte Carlo samples per ICM request",
    "icm_places_players": "players for ICM finish places",
    "icm_bubble_players": "players for bubble factors",
    "solve_iterations": "iterations of a solve or push/fold request",
    "solve_seconds": "the most `time` a solve or push/fold request may ask for",
    "two_round_stack": "stack of the two-round game",
    "two_round_buckets": "flop buckets of the two-round game",
    "two_round_checks": "exploitability measurements of a two-round request",
    "two_round_node_boards": "node-boards of exact best response per two-round request",
    "two_round_node_boards_per_second": "the rate the two-round time limit assumes",
    "request_bytes": "bytes of a request body",
    "upload_bytes": "bytes of a saved postflop solve uploaded to `/api/postflop/load`",
}


def _api_description(limits: Limits) -> str:
    """The OpenAPI document's description: what the API is, how it answers, and this server's limits."""
    rows = "\n".join(f"- `{name}` {value:,}: {LIMIT_WORDS.get(name, name)}" for name, value in limits.__dict__.items())
    return ("Equity, ICM, push/fold and CFR solving: the same JSON as the CLI's `--json`. Every refusal is a JSON "
            "object `{\"detail\": \"one sentence\"}`: 422 for bad input or a request over a limit, 413 for a body "
            "over `request_bytes`, 400 for a Host header this server does not answer to, 503 (with Retry-After) "
            "when every worker is busy and the line is full. The `/stream` endpoints answer one JSON object per "
            "line (`application/x-ndjson`): `{\"progress\": ...}` lines (`{\"queue\": n}` while waiting for a "
            "worker), then `{\"result\": ...}` or `{\"error\": \"sentence\", \"status\": 422}`. Numbers must be "
            "JSON numbers (`true`, `false` and text are refused).\n\nThis server's limits:\n\n" + rows)


PROBLEM_SCHEMA = {"title": "Problem", "type": "object", "required": ["detail"],
                  "properties": {"detail": {"type": "string", "description": "What is wrong and what to change, "
                                            "in one sentence."}}}


def _field_maxima(limits: Limits) -> dict[tuple[str, str], float]:
    """The request fields this server bounds, with their bounds (the OpenAPI document's ``maximum``)."""
    return {("EquityRequest", "trials"): limits.trials, ("EquityRequest", "time"): limits.sampling_seconds,
            ("ICMRequest", "samples"): limits.icm_samples, ("ICMRequest", "time"): limits.sampling_seconds,
            ("SolveRequest", "iterations"): limits.solve_iterations, ("SolveRequest", "time"): limits.solve_seconds,
            ("PushFoldRequest", "iterations"): limits.solve_iterations,
            ("PushFoldRequest", "time"): limits.solve_seconds,
            ("TwoRoundRequest", "stack"): limits.two_round_stack,
            ("TwoRoundRequest", "buckets"): limits.two_round_buckets,
            ("TwoRoundRequest", "checks"): limits.two_round_checks,
            ("TwoRoundRequest", "iterations"): limits.solve_iterations,
            ("TwoRoundRequest", "time"): limits.solve_seconds}


def _described_responses(document: dict[str, Any], limits: Limits) -> dict[str, Any]:
    """``document`` with the answers the server really gives: the refusals as :data:`PROBLEM_SCHEMA` (FastAPI
    describes a list of validator errors the server never sends), 400, 413 and 503, and NDJSON for streams; and
    this server's bounds on the request fields."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for (model, field), most in _field_maxima(limits).items():
        if field in schemas.get(model, {}).get("properties", {}):
            schemas[model]["properties"][field]["maximum"] = most
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    schemas["Problem"] = PROBLEM_SCHEMA
    problem = {"application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
    refusals = {
        "400": "the Host header is not one this server answers to",
        "413": "the request body is over `request_bytes`",
        "422": "bad input, or a request over one of this server's limits",
        "503": "every worker is busy and the waiting line is full; retry after the Retry-After header's seconds",
    }
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            for status, words in refusals.items():
                if status in ("413", "503") and method != "post":
                    continue
                responses[status] = {"description": words, "content": problem}
            if path.endswith("/stream"):
                responses["200"] = {"description": "one JSON object per line: progress, then the result or an error",
                                    "content": {"application/x-ndjson": {"schema": {"type": "string"}}}}
    return document


TIMEOUT_ADVICE = {
    "pushfold": "give a time limit or a larger target gain, or fewer seats",
    "equity": "use method auto or montecarlo with a time limit, or narrower ranges",
    "hand-equity": "give the player fewer hand classes, or fewer players",
    "icm": "use method montecarlo with a time limit, or turn off finish places and bubble factors",
    "solve": "ask for fewer iterations or give a time limit",
    "two-round": "ask for fewer iterations or checks, or a smaller stack",
    "postflop": "give a time limit or a larger target, or a smaller tree",
    "postflop-node": "browse a smaller spot (a flop node's equity runs over every turn and river)",
    "postflop-load": "load a smaller solve",
    "postflop-report": "give fewer flops or iterations, a larger target, or narrower ranges",
}


def _cacheable(task: str, params: dict[str, Any], result: dict[str, Any]) -> bool:
    seeded = params.get("seed") is not None
    if result.get("stop_reason") == "time":  # a precision target given alone runs to a time limit at most
        return False
    if task == "equity":
        return result.get("method") == "exact" or (seeded and params.get("time") is None)
    if task == "icm":  # sampled equities or sampled bounties (a field over 18 players) only when seeded
        sampled = "samples" in result or "samples" in (result.get("bounty") or {})
        return not sampled or (seeded and params.get("time") is None)
    if task in ("postflop", "postflop-load"):  # the answer names a stored solve, which a later eviction drops
        return False
    if task == "postflop-report":  # deterministic, unless the time budget ended it early
        return not result.get("early")
    if task in ("pushfold", "two-round", "hand-equity"):
        return params.get("time") is None  # seeded by default
    return params.get("time") is None and (seeded or "mccfr" not in str(params.get("algo")))


def _error_response(status: int, message: str, retry_after: int | None = None) -> JSONResponse:
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return JSONResponse({"detail": message}, status_code=status, headers=headers)


async def _disconnect(request: Request) -> None:
    """Returns when the client closes its connection (the request body has been read already)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def _client_left_first(request: Request, job: asyncio.Future[Any], *others: asyncio.Future[Any]) -> bool:
    """Wait for ``job`` (or any of ``others``) or for the client to go away, whichever comes first; in the
    second case cancel ``job`` (its worker is killed) and return True."""
    watcher = asyncio.ensure_future(_disconnect(request))
    try:
        await asyncio.wait({job, watcher, *others}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
    if job.done() or any(other.done() for other in others) or not watcher.done() or watcher.cancelled():
        return False
    job.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await job
    return True


def create_app(settings: Settings | None = None) -> FastAPI:
    """The application with its own worker pool (started and stopped by the app's lifespan).

    >>> create_app(Settings(workers=1)).title
    'pokerlab'
    """
    settings = settings or Settings()
    limits = settings.limits
    cache = _ResultCache(settings.cache_size)
    state: dict[str, Any] = {}

    def answering() -> None:
        """A request has come: the workers may start (see ``lifespan``)."""
        if "answered" in state:
            state["answered"].set()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        pool = WorkerPool(settings.workers, settings.max_queue, warm=settings.warm)
        state["pool"] = pool
        answered = state["answered"] = asyncio.Event()

        async def start_workers() -> None:
            # after the server's first answer (or a short wait): the workers' start (imports, kernels from numba's
            # cache: seconds of CPU) would compete with it on a small machine; a job sent before waits in line
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(answered.wait(), settings.workers_delay_s)
            await pool.start()
            await asyncio.to_thread(load_prechecks)  # beside the event loop: no request waits for these imports

        starting = asyncio.ensure_future(start_workers())
        try:
            yield
        finally:
            starting.cancel()
            await pool.close()

    # /docs is a page of our own (static/docs.html): Swagger UI's is loaded from a CDN, blank offline
    app = FastAPI(title="pokerlab", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  description=_api_description(limits))
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")

    @app.exception_handler(PokerlabError)
    async def _bad_input(_: Request, error: PokerlabError) -> JSONResponse:
        return _error_response(422, str(error))

    @app.exception_handler(RequestValidationError)
    async def _bad_request(_: Request, error: RequestValidationError) -> JSONResponse:
        return _error_response(422, validation_message(error.errors()))

    @app.exception_handler(QueueFullError)
    async def _busy(_: Request, __: QueueFullError) -> JSONResponse:
        return _error_response(503, "the server is busy (every worker is taken and the queue is full); "
                                    "try again in a moment", retry_after=1)

    @app.exception_handler(JobFailedError)
    async def _failed(_: Request, error: JobFailedError) -> JSONResponse:
        return _error_response(error.status, error.message)

    def timeout_message(task: str, seconds: float) -> str:
        return f"the {task} job ran past this server's limit of {seconds:g} s and was stopped; {TIMEOUT_ADVICE[task]}"

    async def compute(request: Request, task: str, params: dict[str, Any], seconds: float) -> Response:
        answering()
        key = json.dumps([task, params], sort_keys=True)
        cached = cache.get(key)
        if cached is not None:
            return Response(cached, media_type="application/json", headers={"X-Pokerlab-Cache": "hit"})
        job = asyncio.ensure_future(state["pool"].run(task, params, seconds))
        if await _client_left_first(request, job):  # stop its job and free the worker
            return Response(status_code=499)
        try:
            result = job.result()
        except JobTimeoutError:
            return _error_response(422, timeout_message(task, seconds))
        body = json.dumps(result).encode()
        if _cacheable(task, params, result):
            cache.put(key, body)
        return Response(body, media_type="application/json", headers={"X-Pokerlab-Cache": "miss"})

    async def stream(request: Request, task: str, params: dict[str, Any], seconds: float) -> Response:
        """NDJSON: progress objects, then ``{"result": ...}``; the status code is decided by the first event
        (a job refused at once is a plain 422 like the unstreamed endpoint's)."""
        answering()
        key = json.dumps([task, params], sort_keys=True)
        cached = cache.get(key)
        if cached is not None:  # a share link, or the same question again: the answer the plain endpoint gives
            return Response(b'{"result": ' + cached + b"}\n", media_type="application/x-ndjson",
                            headers={"X-Pokerlab-Cache": "hit"})

        def keep(result: Any) -> None:
            if _cacheable(task, params, result):
                cache.put(key, json.dumps(result).encode())

        events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        job = asyncio.ensure_future(state["pool"].run(task, params, seconds, progress=events.put_nowait))
        first = asyncio.ensure_future(events.get())
        if await _client_left_first(request, job, first):
            first.cancel()
            return Response(status_code=499)
        if job.done() and not first.done():
            first.cancel()
            try:
                result = job.result()
            except JobTimeoutError:
                return _error_response(422, timeout_message(task, seconds))
            keep(result)
            return Response(json.dumps({"result": result}) + "\n", media_type="application/x-ndjson",
                            headers={"X-Pokerlab-Cache": "miss"})

        async def lines() -> AsyncIterator[str]:
            getter: asyncio.Future[dict[str, Any]] | None = None
            try:
                yield json.dumps({"progress": first.result()}) + "\n"
                while True:
                    getter = asyncio.ensure_future(events.get())
                    await asyncio.wait({job, getter}, return_when=asyncio.FIRST_COMPLETED)
                    if getter.done():
                        yield json.dumps({"progress": getter.result()}) + "\n"
                        continue
                    getter.cancel()
                    while not events.empty():
                        yield json.dumps({"progress": events.get_nowait()}) + "\n"
                    try:
                        result = job.result()
                        keep(result)
                        yield json.dumps({"result": result}) + "\n"
                    except JobTimeoutError:
                        yield json.dumps({"error": timeout_message(task, seconds), "status": 422}) + "\n"
                    except JobFailedError as error:
                        yield json.dumps({"error": error.message, "status": error.status}) + "\n"
                    return
            finally:  # the client closed the connection (Stop button, closed tab) or the job ended
                if getter is not None:  # else left pending: "Task was destroyed but it is pending!" at exit
                    getter.cancel()
                if not job.done():
                    job.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await job

        return StreamingResponse(lines(), media_type="application/x-ndjson", headers={"X-Pokerlab-Cache": "miss"})

    def endpoints(name: str, model: type, check: Callable[[Any, Limits], float], summary: str) -> None:
        precheck = PRECHECKS.get(name)

        def checked(body: Any) -> tuple[dict[str, Any], float]:
            """The job's parameters and time limit, refused here (before it waits in line) when it is wrong."""
            seconds = check(body, limits)
            params: dict[str, Any] = body.model_dump()
            if precheck is not None:
                precheck(params)
            return params, seconds

        async def plain(request: Request, body: Any) -> Response:
            return await compute(request, name, *checked(body))

        async def streamed(request: Request, body: Any) -> Response:
            return await stream(request, name, *checked(body))

        # the body's model is known only here, so the annotations FastAPI reads are set by hand
        plain.__annotations__ = {"request": Request, "body": model, "return": Response}
        streamed.__annotations__ = {"request": Request, "body": model, "return": Response}
        plain.__doc__ = summary
        streamed.__doc__ = f"{summary} Streamed: one JSON object per line, progress first, then the result."
        app.post(f"/api/{name}", name=name)(plain)
        app.post(f"/api/{name}/stream", name=f"{name}_stream")(streamed)

    endpoints("equity", EquityRequest, _equity_limits, "All-in equity, as `pokerlab equity --json`.")
    endpoints("hand-equity", HandEquityRequest, _hand_equity_limits,
              "Equity of every hand class of one player's range against the others (the page's grid after a run).")
    endpoints("icm", ICMRequest, _icm_limits, "ICM prize equity, as `pokerlab icm --json`.")
    endpoints("pushfold", PushFoldRequest, _pushfold_limits,
              "Push/fold Nash charts under chip EV or ICM, as `pokerlab pushfold --json`.")
    endpoints("solve", SolveRequest, _solve_limits,
              "CFR solving, as `pokerlab solve --json`, with the exploitability curve and the strategy.")
    endpoints("two-round", TwoRoundRequest, _two_round_limits,
              "The two-round hold'em game trained by MCCFR, as `pokerlab two-round train --exploitability --json` "
              "(no file written), with the exact exploitability curve and the strategy per betting node.")

    # ---- the shipped full-ring charts: read from the package's chart file, no solving ----
    def full_ring_answer(seats: int, depth: float, ante: str, icm: str | None = None, overcalls: bool = False
                         ) -> dict[str, Any]:
        from pokerlab.pushfold.fullring_charts import (
            ante_rule,
            available_depths,
            full_ring_chart,
            real_game_dict,
            shipped_model,
        )
        from pokerlab.pushfold.fullring_deeper import deeper_reading_dict

        if icm is not None:
            from pokerlab.pushfold.fullring_icm_charts import icm_chart_answer

            if ante_rule(ante) != "none":
                raise InvalidArgumentError("the shipped ICM charts have no ante: ask for ante none with icm")
            return icm_chart_answer(seats, depth, icm, overcalls=overcalls)
        chart = full_ring_chart(seats, depth, ante)
        return chart.to_dict(overcalls) | {"exact": chart.exact, "model": shipped_model(),
                                  "depths": available_depths(seats, ante).tolist(), "real_game": real_game_dict(chart),
                                  "deeper_reading": deeper_reading_dict(chart)}

    @app.post("/api/pushfold/chart")
    def full_ring_chart_post(body: FullRingChartRequest) -> dict[str, Any]:
        """The shipped full-ring chart nearest a depth, as `pokerlab pushfold --chart full-ring --json` (no
        solving: read from the package's chart file, whose header comes back as `model`), with the chart played in
        the real game (`real_game`: per seat its chip EV and best-response gain, bracketed; money for the ICM
        charts), at a short spot the next deeper chart played at its depth (`deeper_reading`, with `better` where it
        plays better there) and, with `overcalls`, the over-call ranges."""
        return full_ring_answer(body.seats, body.depth, body.ante, body.icm, body.overcalls)

    @app.get("/api/pushfold/chart")
    def full_ring_chart_get(seats: int = 9, depth: float = 10.0,
                            ante: Annotated[str, Query(max_length=8)] = "none",
                            icm: Annotated[str | None, Query(max_length=8)] = None,
                            overcalls: bool = False) -> dict[str, Any]:
        """The same as `POST /api/pushfold/chart`, from the query (`?seats=9&depth=10&ante=none`, `&icm=final`,
        `&overcalls=true`)."""
        return full_ring_answer(seats, depth, ante, icm, overcalls)
    # ---- end of the shipped full-ring charts ----

    # ---- the postflop tab: a solve kept in a bounded store (web/postflop.py), browsed without solving again ----
    solves = SolveStore()
    app.state.solves = solves

    def postflop_job(body: PostflopRequest) -> tuple[dict[str, Any], float]:
        """The solve's parameters (a place in the store for its file, the time budget it ends itself at) and
        time limit, refused here when wrong."""
        seconds = postflop_limits(body, limits.solve_seconds)
        key = solves.reserve()
        store = {"id": key, "path": str(solves.path(key)), "stop": str(solves.stop_path(key))}
        return body.model_dump() | {"store": store, "budget_s": limits.solve_seconds}, seconds

    @app.post("/api/postflop", name="postflop")
    async def postflop(request: Request, body: PostflopRequest) -> Response:
        """A no-limit hold'em postflop spot solved, as `pokerlab postflop solve --json`, within a work budget,
        plus `curve` (exploitability, % of the pot, after each check), `id` (the solve kept for
        `/api/postflop/node` and `/api/postflop/file/{id}`), `spot_hash` and `early` (null, or why it ended
        before its own stopping rules: Stop or the server's time budget, and its exploitability then)."""
        return await compute(request, "postflop", *postflop_job(body))

    @app.post("/api/postflop/stream", name="postflop_stream")
    async def postflop_stream(request: Request, body: PostflopRequest) -> Response:
        """`/api/postflop` streamed: one JSON object per line, progress first (the first from the solve is
        `{"id"}`, what `/api/postflop/stop` names), then the result."""
        return await stream(request, "postflop", *postflop_job(body))

    @app.post("/api/postflop/stop")
    def postflop_stop(body: PostflopKeyRequest) -> dict[str, Any]:
        """Stop a running solve where it is: it ends at its next exploitability check (every 10 iterations) and
        is kept and answered like a finished one, its `early` saying so. `stopping`: false when it had finished."""
        return {"id": body.id, "stopping": solves.stop(body.id)}

    @app.post("/api/postflop/open")
    def postflop_open(body: PostflopOpenRequest) -> dict[str, Any]:
        """A kept solve reopened (a share link): the answer its solve gave, when the spot sent is the spot it
        solved (by `spot_hash`); 422 when the server no longer holds it or it is of another spot."""
        answer = solves.answer(body.id)
        if answer.get("spot_hash") != requested_spot_hash(body.spot):
            raise InvalidArgumentError(f"the solve {body.id[:12]!r} is of another spot than the one sent (board, "
                                       "ranges, sizes or locks differ): solve the spot again")
        return answer

    def report_job(body: PostflopReportRequest) -> tuple[dict[str, Any], float]:
        return body.model_dump() | {"budget_s": limits.solve_seconds}, report_limits(body, limits.solve_seconds)

    @app.post("/api/postflop/report", name="postflop_report")
    async def postflop_report(request: Request, body: PostflopReportRequest) -> Response:
        """`pokerlab postflop report --json` on a few flops (at most 12) within the work budget: per flop and by
        texture, OOP's first-action frequencies, EVs, equity; `early` when the time budget ended it between two
        flops (the finished flops kept)."""
        return await compute(request, "postflop-report", *report_job(body))

    @app.post("/api/postflop/report/stream", name="postflop_report_stream")
    async def postflop_report_stream(request: Request, body: PostflopReportRequest) -> Response:
        """`/api/postflop/report` streamed: `{"flops_done", "flops"}` after each flop, then the result."""
        return await stream(request, "postflop-report", *report_job(body))

    @app.post("/api/postflop/estimate")
    def postflop_cost(body: PostflopRequest) -> dict[str, Any]:
        """What a spot needs before it is solved: solver storage against this server's limit, and the updates of
        the iterations asked for against its budget (a spot over the storage limit: 422, in words)."""
        return postflop_estimate(body)

    @app.post("/api/postflop/node")
    async def postflop_node(request: Request, body: PostflopNodeRequest) -> Response:
        """One node of a kept solve (no solving again): the node view, every hand of the player to act, the
        13x13 classes, the opponent's range there and the cards a chance node deals; 422 when the solve is no
        longer kept."""
        path = solves.get(body.id)
        return await compute(request, "postflop-node", {"path": str(path), "line": list(body.line)},
                             limits.job_seconds)

    upload_body = {"requestBody": {"required": True, "content": {"application/octet-stream": {
        "schema": {"type": "string", "format": "binary"}}}}}

    @app.post("/api/postflop/load", openapi_extra=upload_body)
    async def postflop_load(request: Request) -> Response:
        """A saved solve (the bytes of what `pokerlab postflop solve --out` writes, at most `upload_bytes`,
        streamed to disk) kept for browsing: the answer is the solve's, with its `id`; 413 over `upload_bytes`
        (by Content-Length before a byte is read, or as soon as more came); another format, version, a corrupt
        file or one unpacking to more than 256 MiB is a 422."""
        key = solves.reserve()
        upload = solves.folder / f".{key}-upload"
        try:
            if not await receive_upload(request.stream(), upload, limits.upload_bytes):
                solves.discard(key)
                return _error_response(413, upload_too_large(None, limits.upload_bytes))
            check_upload(upload, MAX_MEMORY)
            size = upload.stat().st_size
            upload.rename(solves.path(key))
            response = await compute(request, "postflop-load", {"path": str(solves.path(key)), "id": key},
                                     limits.job_seconds + size / 20e6)
        except BaseException:
            solves.discard(key)
            raise
        if response.status_code != 200:
            solves.discard(key)
        return response

    @app.get("/api/postflop/file/{key}")
    async def postflop_file(key: str) -> FileResponse:
        """A kept solve as the `.npz` file `pokerlab postflop load` (and `/api/postflop/load`) reads."""
        return FileResponse(str(solves.get(key)), media_type="application/octet-stream",
                            filename=f"pokerlab-postflop-{key[:8]}.npz")
    # ---- end of the postflop tab ----

    @app.post("/api/range")
    def range_info(body: RangeRequest) -> dict[str, Any]:
        """A range's canonical text, combo counts and 13x13 grid, as `pokerlab range --json` plus `grid`."""
        from pokerlab.web.ranges import cached_range_summary

        return cached_range_summary(body.text, body.board, tuple(sorted(body.paint.items())), body.hand)

    @app.post("/api/stacks")
    def stacks(body: StacksRequest) -> dict[str, Any]:
        """Stacks as typed or pasted (thousands separators, names), read as `pokerlab icm --stacks` reads them."""
        from pokerlab.icm.lobby import parse_stacks

        parsed = parse_stacks(body.text)
        return {"stacks": parsed.chips.tolist(), "names": list(parsed.names), "named": parsed.named}

    @app.get("/api/info")
    async def info() -> dict[str, Any]:
        """Games, algorithms, payout splits and this server's limits, for the page's menus."""
        answering()
        from pokerlab.icm.payouts import STANDARD
        from pokerlab.web.solving import GAMES, TWO_ROUND_DEFAULTS, algorithms

        return {"version": __version__, "games": list(GAMES), "algorithms": list(algorithms()),
                "two_round": TWO_ROUND_DEFAULTS,
                "payout_splits": list(STANDARD), "limits": limits.__dict__}

    @app.get("/api/health")
    def health() -> dict[str, Any]:
        """Workers, jobs running and waiting, worker restarts, cache entries and hits."""
        pool: WorkerPool = state["pool"]
        return {"workers": pool.size, "running": pool.running, "waiting": pool.waiting, "restarts": pool.restarts,
                "cache_entries": len(cache.entries), "cache_hits": cache.hits, "time": time.time()}

    def openapi_document() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _described_responses(get_openapi(
                title=app.title, version=app.version, description=app.description, routes=app.routes), limits)
        return app.openapi_schema

    app.openapi = openapi_document  # type: ignore[method-assign]  # FastAPI's documented way to amend it

    @app.api_route("/docs", methods=["GET", "HEAD"], include_in_schema=False)
    async def docs() -> FileResponse:
        return FileResponse(str(STATIC / "docs.html"), headers={"Cache-Control": "no-cache"})

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def index() -> FileResponse:
        answering()
        return FileResponse(str(STATIC / "index.html"), headers={"Cache-Control": "no-cache"})

    uploads = {"/api/postflop/load": (limits.upload_bytes, lambda size: upload_too_large(size, limits.upload_bytes))}
    app.add_middleware(RequestGuard, max_body=limits.request_bytes, allowed_hosts=settings.allowed_hosts,
                       uploads=uploads)
    app.state.settings = settings
    app.state.jobs = state
    return app
