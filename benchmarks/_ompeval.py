"""OMPEval (https://github.com/zekyll/OMPEval), the C++ peer of the equity and evaluator benchmarks, built from
a source checkout that you provide: ``OMPEVAL_SRC=/path/to/OMPEval`` or ``--ompeval /path/to/OMPEval``.

The sources are copied to a temporary directory (never into this repository), patched for current compilers
(``#include <functional>`` is forced and the random generator's ``min``/``max`` made ``constexpr``, which
libstdc++ 12 requires), and compiled with ``g++ -O3 -march=native`` together with the small driver below,
which times only the work (tables are built before the clock starts). Without a source path or a compiler
the OMPEval rows are skipped with a message.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DRIVER = r"""
#include "omp/EquityCalculator.h"
#include "omp/HandEvaluator.h"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
using namespace omp;
using Clock = std::chrono::steady_clock;
static double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    std::string mode = argv[1];
    HandEvaluator eval;
    if (mode == "enumerate") {  // all 133,784,560 seven-card hands, one card added at a time, one thread
        auto t = Clock::now();
        uint64_t sum = 0, count = 0;
        for (unsigned c1 = 0; c1 < 52; c1++) for (unsigned c2 = c1 + 1; c2 < 52; c2++)
        for (unsigned c3 = c2 + 1; c3 < 52; c3++) for (unsigned c4 = c3 + 1; c4 < 52; c4++) {
            Hand h4 = Hand::empty() + c1 + c2 + c3 + c4;
            for (unsigned c5 = c4 + 1; c5 < 52; c5++) { Hand h5 = h4 + c5;
            for (unsigned c6 = c5 + 1; c6 < 52; c6++) { Hand h6 = h5 + c6;
            for (unsigned c7 = c6 + 1; c7 < 52; c7++) { sum += eval.evaluate(h6 + c7); ++count; } } }
        }
        std::printf("%.6f %llu %llu\n", since(t), (unsigned long long)count, (unsigned long long)sum);
        return 0;
    }
    if (mode == "random") {  // argv[2]: a file of N x 7 uint8 card indices; one thread
        FILE* f = std::fopen(argv[2], "rb");
        if (!f) return 4;
        std::vector<uint8_t> cards;
        uint8_t buf[1 << 16];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) cards.insert(cards.end(), buf, buf + n);
        std::fclose(f);
        size_t hands = cards.size() / 7;
        auto t = Clock::now();
        uint64_t sum = 0;
        for (size_t i = 0; i < hands; ++i) {
            const uint8_t* c = &cards[7 * i];
            sum += eval.evaluate(Hand::empty() + c[0] + c[1] + c[2] + c[3] + c[4] + c[5] + c[6]);
        }
        std::printf("%.6f %zu %llu\n", since(t), hands, (unsigned long long)sum);
        return 0;
    }
    // exact|montecarlo threads hands board dead range...
    bool exact = mode == "exact";
    unsigned threads = std::atoi(argv[2]);
    uint64_t hand_limit = std::strtoull(argv[3], nullptr, 10);
    uint64_t board = CardRange::getCardMask(argv[4]);
    uint64_t dead = CardRange::getCardMask(argv[5]);
    std::vector<CardRange> ranges;
    for (int i = 6; i < argc; ++i) ranges.emplace_back(argv[i]);
    EquityCalculator calc;
    if (!exact) calc.setHandLimit(hand_limit);
    auto t = Clock::now();
    if (!calc.start(ranges, board, dead, exact, exact ? 5e-5 : 0.0, nullptr, 0.2, threads)) return 3;
    calc.wait();
    double seconds = since(t);
    auto r = calc.getResults();
    std::printf("%.6f %llu", seconds, (unsigned long long)r.hands);
    for (unsigned p = 0; p < r.players; ++p) std::printf(" %.9f", r.equity[p]);
    std::printf("\n");
    return 0;
}
"""


def source_path(argv: list[str] | None = None) -> Path | None:
    """The OMPEval checkout named by ``--ompeval PATH`` or ``$OMPEVAL_SRC``, or ``None``."""
    argv = sys.argv[1:] if argv is None else argv
    if "--ompeval" in argv and argv.index("--ompeval") + 1 < len(argv):
        return Path(argv[argv.index("--ompeval") + 1])
    value = os.environ.get("OMPEVAL_SRC")
    return Path(value) if value else None


class OMPEval:
    """A built OMPEval driver; :meth:`build` returns ``None`` (and says why) when it cannot be built."""

    def __init__(self, binary: Path, workdir: Path) -> None:
        self.binary = binary
        self.workdir = workdir

    @classmethod
    def build(cls, source: Path | None) -> OMPEval | None:
        if source is None:
            print("  OMPEval rows skipped: set OMPEVAL_SRC or pass --ompeval PATH (a checkout of "
                  "github.com/zekyll/OMPEval)")
            return None
        compiler = shutil.which(os.environ.get("CXX", "g++"))
        if compiler is None or not (source / "omp" / "EquityCalculator.cpp").exists():
            print(f"  OMPEval rows skipped: no C++ compiler ({compiler}) or no OMPEval sources in {source}")
            return None
        workdir = Path(tempfile.mkdtemp(prefix="pokerlab-ompeval-"))
        shutil.copytree(source / "omp", workdir / "omp")
        if (source / "libdivide").exists():
            shutil.copytree(source / "libdivide", workdir / "libdivide")
        random_header = workdir / "omp" / "Random.h"
        text = random_header.read_text()
        for bound in ("min", "max"):
            text = text.replace(f"static uint64_t {bound}()", f"static constexpr uint64_t {bound}()")
        random_header.write_text(text)
        (workdir / "driver.cpp").write_text(DRIVER)
        binary = workdir / "ompeval-driver"
        command = [compiler, "-O3", "-march=native", "-std=c++11", "-pthread", "-include", "functional",
                   "-I", str(workdir), str(workdir / "driver.cpp"), *map(str, sorted((workdir / "omp").glob("*.cpp"))),
                   "-o", str(binary)]
        built = subprocess.run(command, capture_output=True, text=True)
        if built.returncode != 0:
            print(f"  OMPEval rows skipped: the build failed:\n{built.stderr[-2000:]}")
            return None
        return cls(binary, workdir)

    def run(self, *arguments: str) -> list[str]:
        """Run the driver; its output fields (seconds first)."""
        done = subprocess.run([str(self.binary), *arguments], capture_output=True, text=True, check=True)
        return done.stdout.split()

    def seconds(self, *arguments: str) -> float:
        """Seconds of work the driver measured for one run."""
        return float(self.run(*arguments)[0])
