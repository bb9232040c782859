"""``pokerlab warmup``: compile (or load from the cache) every kernel the commands use, once, up front."""

from __future__ import annotations

import typer

from pokerlab.cli.common import JSON_OPTION, command, print_json, progress_bar


@command("warmup")
def warmup_command(
    jobs: int = typer.Option(2, "--jobs", "-j", min=1, max=16, help="Processes compiling at once (numba compiles "
                             "on one core each)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Compile every kernel the commands use (first run only; later runs load them from the cache)."""
    import time
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_context

    from pokerlab.warmup import KERNEL_GROUPS, warm_group

    groups = {name: group for name, group in KERNEL_GROUPS.items() if group.within is None}  # no group twice
    start = time.perf_counter()
    done: list[tuple[str, float, int]] = []
    with progress_bar("compiling kernels", len(groups), enabled=not as_json, unit="groups") as update:
        update(0, status="(first run only)")
        if jobs == 1:
            for name in groups:
                done.append(warm_group(name))
                update(len(done), status=name)
        else:
            # spawned workers: a fork of a process that has loaded numba's threading layer is unsafe
            with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
                futures = [pool.submit(warm_group, name) for name in groups]
                for future in as_completed(futures):
                    done.append(future.result())
                    update(len(done), status=done[-1][0])
    wall = time.perf_counter() - start
    compiled = sum(kernels for _, _, kernels in done)
    by_name = {name: (seconds, kernels) for name, seconds, kernels in done}
    if as_json:
        print_json({"wall_s": wall, "jobs": jobs, "kernels_compiled": compiled,
                    "groups": [{"name": name, "description": group.description, "seconds": by_name[name][0],
                                "kernels_compiled": by_name[name][1]} for name, group in groups.items()]})
        return
    for name, group in groups.items():
        seconds, kernels = by_name[name]
        what = f"{kernels} compiled" if kernels else "loaded from the cache"
        typer.echo(f"  {name:<18} {seconds:6.1f} s  {what:<22} {group.description}")
    summary = (f"{compiled} kernels compiled" if compiled else "every kernel was already compiled (loaded from the "
               "cache)")
    typer.echo(f"warmup: {summary} in {wall:.1f} s wall ({jobs} process{'es' if jobs > 1 else ''})")
