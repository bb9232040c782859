"""The one file form of solver states and strategies: round trip, and each way a file can be refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pokerlab.errors import FileFormatError, InvalidArgumentError
from pokerlab.solvers import Solver
from pokerlab.solvers.archive import check_format, read_archive, write_archive

WHAT = "pokerlab test file"


def test_round_trip_keeps_arrays_and_meta_exactly(tmp_path):
    arrays = {"a": np.array([0.1, 1 / 3, np.nextafter(1.0, 2.0)]), "b": np.arange(6, dtype=np.uint64).reshape(2, 3)}
    meta = {"format": "x", "format_version": 2, "nested": {"k": [1, 2]}}
    path = write_archive(tmp_path / "f.npz", meta, arrays)
    read_meta, read_arrays = read_archive(path, WHAT)
    assert read_meta == meta
    assert set(read_arrays) == {"a", "b"}
    for key, value in arrays.items():
        assert read_arrays[key].dtype == value.dtype and np.array_equal(read_arrays[key], value)
    check_format(path, read_meta, ("x", "y"), 2, WHAT)  # accepted: no exception
    _, only_a = read_archive(path, WHAT, keys=("a",))
    assert list(only_a) == ["a"]


def test_refusals_name_the_file_and_the_reason(tmp_path):
    with pytest.raises(InvalidArgumentError, match="no pokerlab test file .*none.npz"):
        read_archive(tmp_path / "none.npz", WHAT)
    with pytest.raises(InvalidArgumentError, match="^gone$"):
        read_archive(tmp_path / "none.npz", WHAT, missing="gone")
    (tmp_path / "text.npz").write_text("not an archive")
    with pytest.raises(FileFormatError, match=r"text.npz: not a pokerlab test file \(not a .npz archive\)"):
        read_archive(tmp_path / "text.npz", WHAT)
    np.savez(tmp_path / "bare.npz", a=np.zeros(2))
    with pytest.raises(FileFormatError, match="bare.npz: not a pokerlab test file"):
        read_archive(tmp_path / "bare.npz", WHAT)  # no meta entry
    np.savez(tmp_path / "list.npz", meta=np.array(json.dumps([1, 2])))
    with pytest.raises(FileFormatError, match=r"not a pokerlab test file \(metadata is not an object\)"):
        read_archive(tmp_path / "list.npz", WHAT)
    path = write_archive(tmp_path / "f.npz", {"format": "x", "format_version": 1}, {"a": np.zeros(1)})
    with pytest.raises(FileFormatError, match="not a pokerlab test file"):
        read_archive(path, WHAT, keys=("a", "missing"))
    meta, _ = read_archive(path, WHAT)
    with pytest.raises(FileFormatError, match=r"not a pokerlab test file \(format 'x'\)"):
        check_format(path, meta, ("y",), 1, WHAT)
    with pytest.raises(FileFormatError, match=r"unsupported format version 1 \(this pokerlab reads version 3\)"):
        check_format(path, meta, ("x",), 3, WHAT)


def test_a_solver_file_is_an_archive_of_this_form(tmp_path):
    solver = Solver("kuhn", "cfr+")
    solver.iterate(3)
    meta, arrays = read_archive(solver.save(tmp_path / "s.npz"), WHAT)
    assert meta["format"] == "pokerlab-solver" and meta["iteration"] == 3
    assert np.array_equal(arrays["regrets"], solver.regrets)
