#!/usr/bin/env bash
# Build postflop-solver (github.com/b-inary/postflop-solver, AGPL; never committed here) from source in a scratch
# folder outside the repository, offline, for benchmarks/postflop.py. Its crates registry cannot be reached, so
# its two non-optional dependencies go: the regex range parser in src/range.rs is replaced by hand parsing
# (strip spaces, split on ',', an optional ':weight'), and once_cell, used only for that parser's two lazy
# statics, goes with them (no std::sync::LazyLock needed); the optional ones (bincode, rayon, zstd) are dropped
# from Cargo.toml: the build is single-threaded, as the per-core comparison wants.
# A small binary (src/bin/pokerlab_bench.rs) solves one spot and prints CPU seconds, iterations, exploitability
# and both EVs, and its peak resident memory.
#
# usage: benchmarks/build_postflop_solver.sh SOURCE_DIR [SCRATCH_DIR]
#   SOURCE_DIR: a checkout of postflop-solver (e.g. the `fetch` tool's git dir: a work tree is made from it)
#   prints the path of the built binary
set -euo pipefail
source_dir=${1:?usage: $0 SOURCE_DIR [SCRATCH_DIR]}
scratch=${2:-/tmp/pokerlab-peers/postflop-solver}
rm -rf "$scratch"
mkdir -p "$scratch"
if [ -d "$source_dir/.git" ] || git -C "$source_dir" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$source_dir" archive HEAD | tar -x -C "$scratch"
else
    cp -r "$source_dir"/. "$scratch"
fi
cd "$scratch"
python3 - <<'PY'
import re
from pathlib import Path

cargo = Path("Cargo.toml").read_text()
cargo = re.sub(r'(?m)^once_cell = .*\n', "", cargo)
cargo = re.sub(r'(?m)^regex = .*\n', "", cargo)
# cargo resolves optional dependencies even when they are off: drop them, keep their features as empty flags
cargo = re.sub(r'(?m)^(bincode|rayon|zstd) = .*\n', "", cargo)
cargo = cargo[:cargo.index("[features]")] + ('[features]\ndefault = []\ncustom-alloc = []\nrayon = []\n'
                                            'bincode = []\nzstd = []\n')
Path("Cargo.lock").unlink(missing_ok=True)
Path("Cargo.toml").write_text(cargo)

src = Path("src/range.rs").read_text()
src = src.replace("use once_cell::sync::Lazy;\n", "").replace("use regex::Regex;\n", "")
start = src.index("static RANGE_REGEX")
end = src.index("\n", src.index("static TRIM_REGEX")) + 1
src = src[:start] + src[end:]
body_start = src.index("    fn from_str(s: &str) -> Result<Self, Self::Err> {")
body_end = src.index("        Ok(result)\n    }\n", body_start) + len("        Ok(result)\n    }\n")
src = src[:body_start] + '''    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        let mut ranges = s.split(',').collect::<Vec<_>>();
        if ranges.last().map_or(false, |r| r.is_empty()) {
            ranges.pop();
        }
        let mut result = Self::new();
        for token in ranges.into_iter().rev() {
            let (range, weight) = match token.split_once(':') {
                Some((r, w)) => (r, w.parse::<f32>().map_err(|_| format!("Failed to parse range: {token}"))?),
                None => (token, 1.0),
            };
            if range.is_empty() {
                return Err(format!("Failed to parse range: {token}"));
            }
            check_weight(weight)?;
            if range.contains('-') {
                result.update_with_dash_range(range, weight)?;
            } else if range.contains('+') {
                result.update_with_plus_range(range, weight)?;
            } else {
                result.update_with_singleton(range, weight)?;
            }
        }
        Ok(result)
    }
''' + src[body_end:]
# the unit tests of the regexes go with them
tests = src.find("    fn range_regex()")
if tests >= 0:
    src = src[:src.rfind("#[test]", 0, tests)] + src[src.index("    #[test]", src.index("fn trim_regex()")):]
Path("src/range.rs").write_text(src)

Path("src/bin").mkdir(exist_ok=True)
Path("src/bin/pokerlab_bench.rs").write_text(r'''
use postflop_solver::*;
use std::time::Instant;

// CPU time of this (single-threaded) process in nanoseconds: the scheduler's on-CPU time (clock ticks of
// /proc/self/stat are 10 ms, too coarse for a river spot)
fn cpu_seconds() -> f64 {
    let text = std::fs::read_to_string("/proc/self/schedstat").unwrap();
    text.split_whitespace().next().unwrap().parse::<f64>().unwrap() / 1e9
}

// this process's peak resident memory in bytes (VmHWM: the program's own, whatever the parent's size at fork)
fn peak_rss_bytes() -> u64 {
    let text = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = text.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

// args: oop ip board pot stack bets raises target_percent max_iterations [compress]
// (compress: its 16-bit storage)
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let board = &a[3];
    let flop = flop_from_str(&board[..6]).unwrap();
    let turn = if board.len() >= 8 { card_from_str(&board[6..8]).unwrap() } else { NOT_DEALT };
    let river = if board.len() >= 10 { card_from_str(&board[8..10]).unwrap() } else { NOT_DEALT };
    let state = if river != NOT_DEALT { BoardState::River } else if turn != NOT_DEALT { BoardState::Turn } else { BoardState::Flop };
    let card_config = CardConfig { range: [a[1].parse().unwrap(), a[2].parse().unwrap()], flop, turn, river };
    let sizes = BetSizeOptions::try_from((a[6].as_str(), a[7].as_str())).unwrap();
    let tree_config = TreeConfig {
        initial_state: state, starting_pot: a[4].parse().unwrap(), effective_stack: a[5].parse().unwrap(),
        rake_rate: 0.0, rake_cap: 0.0,
        flop_bet_sizes: [sizes.clone(), sizes.clone()], turn_bet_sizes: [sizes.clone(), sizes.clone()],
        river_bet_sizes: [sizes.clone(), sizes], turn_donk_sizes: None, river_donk_sizes: None,
        add_allin_threshold: 1.5, force_allin_threshold: 0.15, merging_threshold: 0.1,
    };
    let build = Instant::now();
    let tree = ActionTree::new(tree_config).unwrap();
    let mut game = PostFlopGame::with_config(card_config, tree).unwrap();
    let (mem, mem16) = game.memory_usage();
    game.allocate_memory(a.get(10).map_or(false, |s| s == "compress"));
    let build_s = build.elapsed().as_secs_f64();
    let target: f32 = a[8].parse::<f32>().unwrap() / 100.0 * game.tree_config().starting_pot as f32;
    let max_iter: u32 = a[9].parse().unwrap();
    let c0 = cpu_seconds();
    let w0 = Instant::now();
    let mut exploitability = compute_exploitability(&game);
    let mut iterations = 0;
    for t in 0..max_iter {
        if exploitability <= target { break; }
        solve_step(&game, t);
        iterations = t + 1;
        if iterations % 10 == 0 { exploitability = compute_exploitability(&game); }
    }
    let cpu = cpu_seconds() - c0;
    let wall = w0.elapsed().as_secs_f64();
    finalize(&mut game);
    game.cache_normalized_weights();
    let ev0 = compute_average(&game.expected_values(0), game.normalized_weights(0));
    let ev1 = compute_average(&game.expected_values(1), game.normalized_weights(1));
    println!("{{\"cpu_s\": {cpu}, \"wall_s\": {wall}, \"build_s\": {build_s}, \"iterations\": {iterations}, \"exploitability_percent\": {}, \"ev\": [{ev0}, {ev1}], \"memory_bytes\": {mem}, \"memory_bytes_16bit\": {mem16}, \"peak_rss_bytes\": {}}}",
             exploitability / game.tree_config().starting_pot as f32 * 100.0, peak_rss_bytes());
}
''')
PY
# newer rustc denies a lint the 2023 code trips (implicit autoref of a raw pointer): warnings only; the host CPU
# as numba compiles ours for it
RUSTFLAGS="--cap-lints=warn -C target-cpu=native" cargo build --release --offline --no-default-features \
    --bin pokerlab_bench >&2
echo "$scratch/target/release/pokerlab_bench"
