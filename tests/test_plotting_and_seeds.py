"""The shared figure-path rules and seed validation."""

from pathlib import Path

import numpy as np
import pytest

from pokerlab.errors import InvalidArgumentError
from pokerlab.plotting import figure_path, pyplot, save_figure
from pokerlab.stats import validate_seed


def test_figure_path_adds_png_and_rejects_unknown_suffixes():
    assert figure_path("grid") == Path("grid.png")
    assert figure_path("a/b.SVG") == Path("a/b.SVG")
    with pytest.raises(InvalidArgumentError, match="use one of .png, .pdf, .svg"):
        figure_path("grid.txt")


def test_save_figure_writes_the_returned_path(tmp_path):
    plt = pyplot()
    figure = plt.figure()
    written = save_figure(figure, tmp_path / "picture")
    assert written == tmp_path / "picture.png" and written.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("seed", [0, 7, np.int64(3), None])
def test_valid_seeds(seed):
    assert validate_seed(seed) == (None if seed is None else int(seed))


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True])
def test_invalid_seeds(seed):
    with pytest.raises(InvalidArgumentError, match="seed must be (at least 0|a whole number)"):
        validate_seed(seed)
