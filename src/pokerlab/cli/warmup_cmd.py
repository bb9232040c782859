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

    from pokerlab.warmup import KERNEL_GROUPS, warm_groups

    groups = {name: group for name, group in KERNEL_GROUPS.items() if group.within is None}  # no group twice
    start = time.perf_counter()
    with progress_bar("compiling kernels", len(groups), enabled=not as_json, unit="groups") as update:
        update(0, status="(first run only)")
        done = warm_groups(groups, jobs, on_done=lambda count, name: update(count, status=name))
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
