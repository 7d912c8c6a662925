"""Where --json (and --timeline) may write, and how: a new or regular file appears whole (atomic
replace, mode kept), a symbolic link is followed and kept, /dev/null, a FIFO and /dev/stdout are
written through and never replaced, a directory is refused before anything runs, and a write
error (/dev/full, a file size limit) is exit 3 with one clear line and no partial file."""

import json
import os
import resource
import signal
import stat
import subprocess
import threading
import time

import pytest

from conftest import listing, read_records, run, short_args, smrbench_path


def pair():
    return listing()["compatible"][0]


def no_temporaries(directory):
    return [name for name in os.listdir(directory) if ".smrbench-" in name] == []


def test_new_file_is_created_whole(outdir):
    out = outdir / "new.json"
    r = run([*short_args(*pair()), "--trials", "2", "--json", str(out)])
    assert r.returncode == 0, r.stderr
    assert [rec["trial"] for rec in read_records(out)] == [1, 2]
    assert os.listdir(outdir) == ["new.json"]


def test_regular_file_is_replaced_atomically_and_keeps_its_mode(outdir):
    out = outdir / "old.json"
    out.write_text("old content\n")
    out.chmod(0o640)
    old_inode = out.stat().st_ino
    proc = subprocess.Popen([smrbench_path(), *short_args(*pair()), "--duration", "0.5", "--trials", "2",
                             "--json", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # While trials run the old content stays; the records go to a temporary file beside it.
    time.sleep(0.3)
    assert out.read_text() == "old content\n"
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert len(read_records(out)) == 2
    assert out.stat().st_ino != old_inode  # a new file renamed over the old one
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert no_temporaries(outdir)


def test_symbolic_link_is_followed_and_kept(outdir):
    real = outdir / "real.json"
    real.write_text("old\n")
    (outdir / "sub").mkdir()
    link = outdir / "sub" / "link.json"
    link.symlink_to("../real.json")  # relative: resolved from the link's directory
    r = run([*short_args(*pair()), "--json", str(link)])
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and os.readlink(link) == "../real.json"
    assert len(read_records(real)) == 1
    assert no_temporaries(outdir) and no_temporaries(outdir / "sub")


def test_dangling_symbolic_link_creates_its_target(outdir):
    link = outdir / "link.json"
    link.symlink_to("target.json")
    r = run([*short_args(*pair()), "--json", str(link)])
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and len(read_records(outdir / "target.json")) == 1


def test_dev_null_is_written_through():
    r = run([*short_args(*pair()), "--trials", "2", "--json", "/dev/null"])
    assert r.returncode == 0, r.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_fifo_is_written_through(outdir):
    fifo = outdir / "records.fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    r = run([*short_args(*pair()), "--trials", "2", "--json", str(fifo)])
    reader.join(timeout=60)
    assert r.returncode == 0, r.stderr
    assert [json.loads(line)["trial"] for line in received[0].splitlines()] == [1, 2]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert os.listdir(outdir) == ["records.fifo"]


def test_dev_stdout_is_written_through_to_a_pipe():
    # /dev/stdout is a /proc link to a pipe with no file name: open it, never create one.
    r = run([*short_args(*pair()), "--json", "/dev/stdout"])
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    assert len(records) == 1


@pytest.mark.parametrize("option", ["--json", "--timeline"])
def test_directory_is_refused_before_running(outdir, option):
    start = time.monotonic()
    r = run([*short_args(*pair()), "--duration", "30", option, str(outdir)], timeout=20)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert f"cannot write {option} output '{outdir}': it is a directory; expected a regular file" in lines[0]
    assert time.monotonic() - start < 10  # refused up front: the 30 s trial never ran
    assert os.listdir(outdir) == []


def test_dev_full_is_exit_3_with_a_clear_message():
    r = run([*short_args(*pair()), "--json", "/dev/full"])
    assert r.returncode == 3, r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines == ["smrbench: error: writing --json output '/dev/full': No space left on device"]
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)  # not replaced by a regular file


def limit_file_size():
    # Writes past 1000 bytes fail with EFBIG (and SIGXFSZ, ignored here as a shell could).
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))


@pytest.mark.parametrize("existing", [False, True])
def test_write_error_leaves_no_partial_file(outdir, existing):
    out = outdir / "r.json"
    if existing:
        out.write_text("old\n")
    # A record is several kilobytes, so the first one already fails.
    proc = subprocess.run([smrbench_path(), *short_args(*pair()), "--json", str(out)], capture_output=True,
                          text=True, timeout=60, preexec_fn=limit_file_size, restore_signals=False)
    assert proc.returncode == 3, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines == [f"smrbench: error: writing --json output '{out}': File too large"]
    assert os.listdir(outdir) == (["r.json"] if existing else [])
    if existing:
        assert out.read_text() == "old\n"


def test_list_json_through_a_symbolic_link(outdir):
    (outdir / "link.json").symlink_to("list.json")
    assert run(["--list", "--json", str(outdir / "link.json")]).returncode == 0
    assert json.loads((outdir / "list.json").read_text()) == listing()


def test_a_run_that_fails_half_way_leaves_no_timeline(outdir):
    # The timelines appear with the records that name them: the write error of the first
    # record (/dev/full) ends the run before either is committed.
    timeline = outdir / "t.csv"
    r = run([*short_args(*pair()), "--trials", "2", "--json", "/dev/full", "--timeline", str(timeline)])
    assert r.returncode == 3, r.stderr
    assert os.listdir(outdir) == []


def test_a_timeline_to_dev_null_takes_every_trial():
    # A numbered name beside a device would be a regular file in /dev.
    r = run([*short_args(*pair()), "--trials", "2", "--timeline", "/dev/null", "--json", "-"])
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in r.stdout.splitlines()]
    assert [rec["timeline_file"] for rec in records] == ["/dev/null", "/dev/null"]
    assert not os.path.exists("/dev/null.1")


def test_timelines_of_several_trials_appear_with_their_records(outdir):
    r = run([*short_args(*pair()), "--trials", "2", "--json", str(outdir / "r.json"), "--timeline", str(outdir / "t.csv")])
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(outdir)) == ["r.json", "t.1.csv", "t.2.csv"]
