"""The results store: round trip, crash tolerance, refusal to mix builds and machines."""

import pytest

from smrlab.errors import BadInput
from smrlab.store import MixedResults, Store, trial_key

IDENTITY = {"build": {"commit": "abc", "compiler": "g++ 12", "build_type": "Release", "flags": "-O3"},
            "machine": {"cpu": "X", "cores": 2, "kernel": "6.1", "hostname": "h"}}


def entry(config_hash: str, trial: int, status: str = "ok", identity=IDENTITY) -> dict:
    return {"key": trial_key(config_hash, trial), "config_hash": config_hash, "trial": trial,
            "status": status, "identity": identity, "record": {"metrics": {"ops": trial}}}


def test_round_trip_keeps_order_and_last_entry_per_key(tmp_path):
    store = Store(tmp_path / "s")
    store.append(entry("a", 0))
    store.append(entry("b", 0, status="failed"))
    store.append(entry("a", 1))
    store.append(entry("b", 0))                 # a retried trial replaces the failed one
    got = Store(tmp_path / "s").entries()
    assert [(e["key"], e["status"]) for e in got] == [("a:0", "ok"), ("b:0", "ok"), ("a:1", "ok")]
    assert got[2]["record"] == {"metrics": {"ops": 1}}


def test_a_line_cut_by_a_crash_is_ignored_then_repaired(tmp_path):
    store = Store(tmp_path)
    store.append(entry("a", 0))
    with open(store.trials_path, "a") as f:
        f.write('{"key": "a:1", "config_ha')            # killed mid-write
    assert [e["key"] for e in store.entries()] == ["a:0"]
    store.append(entry("a", 2))
    assert [e["key"] for e in store.entries()] == ["a:0", "a:2"]
    assert store.trials_path.read_text().count("\n") == 2


def test_a_corrupt_line_in_the_middle_is_bad_input(tmp_path):
    store = Store(tmp_path)
    store.append(entry("a", 0))
    with open(store.trials_path, "a") as f:
        f.write("garbage\n")
    with pytest.raises(BadInput, match=r"trials.jsonl:2: not a results entry"):
        store.entries()


def test_plan_is_written_whole_and_read_back(tmp_path):
    store = Store(tmp_path / "s")
    with pytest.raises(BadInput, match="no plan.json"):
        store.read_plan()
    store.write_plan({"experiment": "x", "configs": []})
    assert store.read_plan() == {"experiment": "x", "configs": []}
    assert [p.name for p in (tmp_path / "s").iterdir()] == ["plan.json"]


@pytest.mark.parametrize("part, key", [("build", "commit"), ("build", "flags"),
                                       ("machine", "hostname"), ("machine", "cpu")])
def test_refuses_another_build_or_machine_unless_allowed(tmp_path, part, key):
    store = Store(tmp_path)
    store.append(entry("a", 0))
    store.check_identity(IDENTITY, allow_mixed=False)          # same: fine
    other = {**IDENTITY, part: {**IDENTITY[part], key: "different"}}
    with pytest.raises(MixedResults, match="--allow-mixed"):
        store.check_identity(other, allow_mixed=False)
    store.check_identity(other, allow_mixed=True)


def test_checking_each_trial_reads_the_stored_trials_once(tmp_path, monkeypatch):
    # A run checks the identity before appending each trial. Re-reading the file every time
    # made long runs quadratic; the store reads it once and then follows its own appends.
    Store(tmp_path).append(entry("old", 0))
    store = Store(tmp_path)
    reads = []
    real_entries = Store.entries
    monkeypatch.setattr(Store, "entries", lambda self: reads.append(1) or real_entries(self))
    for trial in range(50):
        store.check_identity(IDENTITY, allow_mixed=False)
        store.append(entry("a", trial))
    assert len(reads) == 1
    with pytest.raises(MixedResults):
        store.check_identity({**IDENTITY, "machine": {**IDENTITY["machine"], "cpu": "Y"}}, False)


def test_the_first_trial_of_an_empty_store_pins_the_identity(tmp_path):
    store = Store(tmp_path)
    store.check_identity(IDENTITY, allow_mixed=False)           # nothing stored: anything goes
    store.append(entry("a", 0))
    other = {**IDENTITY, "build": {**IDENTITY["build"], "commit": "def"}}
    with pytest.raises(MixedResults, match="--allow-mixed"):
        store.check_identity(other, allow_mixed=False)


def test_moving_aside_keeps_everything_and_refuses_clearly_when_it_cannot(tmp_path, monkeypatch):
    store = Store(tmp_path / "s")
    store.append(entry("a", 0))
    moved = store.move_aside()
    assert moved.parent == tmp_path and moved.name.startswith("s.")
    assert [e["key"] for e in Store(moved).entries()] == ["a:0"] and not (tmp_path / "s").exists()
    store.append(entry("b", 0))
    again = store.move_aside()                        # within the same second: a new name
    assert again != moved and [e["key"] for e in Store(again).entries()] == ["b:0"]

    def refuse(self, target):
        raise PermissionError(13, "Permission denied")
    store.append(entry("c", 0))
    monkeypatch.setattr(type(store.root), "rename", refuse)
    with pytest.raises(BadInput, match=r"cannot move .*/s aside to .*: Permission denied"):
        store.move_aside()


def test_failed_trials_without_record_do_not_pin_an_identity(tmp_path):
    store = Store(tmp_path)
    store.append(entry("a", 0, status="failed", identity=None))
    store.check_identity(IDENTITY, allow_mixed=False)
    assert store.identities() == []


def test_bytes_that_are_not_utf8_are_bad_input_not_a_traceback(tmp_path):
    store = Store(tmp_path)
    store.append(entry("a", 0))
    with open(store.trials_path, "ab") as f:
        f.write(b'{"key": "caf\xe9"}\n')
    with pytest.raises(BadInput, match=r"trials.jsonl:2: not a results entry"):
        store.entries()
    (tmp_path / "plan.json").write_bytes(b'{"experiment": "\xff"}')
    with pytest.raises(BadInput, match=r"plan.json is not valid JSON"):
        store.read_plan()


def test_a_line_without_the_fields_every_reader_needs_is_bad_input(tmp_path):
    store = Store(tmp_path)
    store.append(entry("a", 0))
    with open(store.trials_path, "a") as f:
        f.write('{"key": "a:1", "trial": 1}\n')        # no config_hash, no status
    with pytest.raises(BadInput, match=r"trials.jsonl:2: not a results entry"):
        store.entries()


def test_planned_entries_leave_out_other_configs_and_trials_beyond_the_count(tmp_path):
    class Planned:
        def __init__(self, h):
            self.hash = h
    store = Store(tmp_path)
    for h, t in [("a", 0), ("a", 1), ("a", 2), ("b", 0)]:
        store.append(entry(h, t))
    # a plan that went from 3 trials to 2 and dropped config b
    assert [e["key"] for e in store.planned_entries([Planned("a")], 2)] == ["a:0", "a:1"]
