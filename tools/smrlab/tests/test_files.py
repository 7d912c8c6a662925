"""Output safety for smrlab's own files: a regular file is replaced atomically and never left
partial; a symlink is followed; a FIFO or device is written through, never replaced; a directory
is refused; an unusable --out or plots directory is refused before anything is written."""

import os
import signal
import threading

import pytest
from conftest import FAKE

from smrlab import cli, files
from smrlab.errors import Interrupted


def test_a_regular_file_is_replaced_whole(tmp_path):
    target = tmp_path / "report.html"
    target.write_text("old")
    files.write_atomically(target, "new")
    assert target.read_text() == "new" and os.listdir(tmp_path) == ["report.html"]


@pytest.mark.parametrize("error", [Interrupted(signal.SIGTERM), OSError(28, "No space left")])
def test_an_interrupted_or_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, error):
    target = tmp_path / "report.html"
    target.write_text("old")
    with pytest.raises(type(error)):
        with files.replacing(target) as tmp:
            tmp.write_text("<html>half")
            raise error
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["report.html"]


def test_a_symlink_is_followed_and_stays_a_link(tmp_path):
    real = tmp_path / "elsewhere" / "report.html"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "report.html"
    link.symlink_to(real)
    files.write_atomically(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    assert sorted(os.listdir(real.parent)) == ["report.html"]


def test_dev_null_and_a_fifo_are_written_through_not_replaced(tmp_path):
    files.write_atomically(tmp_path / "x", "x")
    files.write_atomically("/dev/null", "discarded")
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    files.write_atomically(fifo, "through the pipe")
    reader.join(timeout=10)
    assert got == ["through the pipe"]
    assert not fifo.is_file() and fifo.exists()         # still a FIFO
    assert sorted(os.listdir(tmp_path)) == ["pipe", "x"]


def test_a_write_error_on_a_device_leaves_no_temporary(tmp_path):
    link = tmp_path / "full"
    link.symlink_to("/dev/full")
    with pytest.raises(OSError):
        files.write_atomically(link, "x" * 100_000)
    assert os.listdir(tmp_path) == ["full"]


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(IsADirectoryError):
        files.write_atomically(tmp_path, "x")
    assert files.problem(tmp_path) == f"{tmp_path} is a directory, not a file"


def test_plots_over_a_file_are_refused_before_anything_is_written(experiment_file, tmp_path,
                                                                 fake, capsys):
    out = tmp_path / "r"
    assert cli.main(["run", str(experiment_file()), "--smrbench", str(FAKE), "--out",
                     str(out)]) == 0
    (out / "plots").write_text("in the way")
    (out / "report.html").mkdir()
    capsys.readouterr()
    assert cli.main(["report", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"smrlab: error: plots directory {out / 'plots'}: exists and is not a directory",
        f"smrlab: error: {out / 'report.html'} is a directory, not a file"]
    assert (out / "plots").read_text() == "in the way"
