"""Plots and report from the fixture of smrbench output (records + a timeline), replayed
through the fake smrbench so the store is built exactly as a real run builds it."""

import csv
import json
import re

import pytest
from conftest import FAKE, FIXTURES, lines, smrlab_process

from smrlab import cli, timeline

RECORDS = lines(FIXTURES / "smrbench_records.jsonl")


def fixture_experiment() -> str:
    """The experiment whose grid the fixture records cover (so the fixture can be replaced)."""
    configs = [r["config"] for r in RECORDS]

    def values(key):
        return sorted({c[key] for c in configs})
    reclaimers = list(dict.fromkeys(c["reclaimer"] for c in configs))
    w = configs[0]["workload"]
    return f"""
figure = "fixture"
description = "plots and report from recorded smrbench output"
[grid]
ds = {json.dumps(values("ds"))}
reclaimer = {json.dumps(reclaimers)}
allocator = {json.dumps(values("allocator"))}
threads = {values("threads")}
workload = ["{w['insert']},{w['delete']},{w['search']}"]
key_range = {values("key_range")}
stall = {values("stalled_threads")}
[run]
trials = {len(values("seed"))}
seed = {min(values("seed"))}
duration_s = {configs[0]["duration_s"]}
timeline = true
[[plots.bars]]
metric = "peak_rss_bytes"
[[finding]]
text = "every trial did some work"
kind = "bounded"
metric = "ops"
min = 1
[[finding]]
text = "an impossible claim, to see it refuted"
kind = "ratio"
metric = "throughput_ops_s"
numerator = {{}}
denominator = {{ reclaimer = "{reclaimers[0]}" }}
max = 0
"""


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("fixture")
    path = root / "fixture.toml"
    path.write_text(fixture_experiment())
    out = root / "results"
    done = smrlab_process(["run", path, "--smrbench", FAKE, "--out", out],
                          env={"FAKE_REPLAY": str(FIXTURES)})
    assert done.returncode == 0, done.stderr
    return out


def test_report_is_self_contained_and_checks_findings(results_dir, capsys):
    assert cli.main(["report", str(results_dir)]) == 0
    path = capsys.readouterr().out.strip()
    page = open(path).read()
    assert path == str(results_dir / "report.html")
    assert "<span class='badge holds'>holds here</span> every trial did some work" in page
    assert "<span class='badge fails'>does not hold here</span> an impossible claim" in page
    assert page.count("data:image/png;base64,") >= 5          # lines, bars, timeline, epochs
    assert "src='plots/" not in page and "<link" not in page    # nothing outside the file
    assert RECORDS[0]["env"]["commit"] in page and RECORDS[0]["env"]["hostname"] in page
    assert "median [min – max]" in page and "<td class='n'>—</td>" in page   # nulls shown as —


def test_plots_come_as_png_svg_and_csv_named_after_experiment_panel_and_metric(results_dir,
                                                                             capsys):
    assert cli.main(["plot", str(results_dir)]) == 0
    written = capsys.readouterr().out.split()
    names = {p.rsplit("/", 1)[1] for p in written}
    for stem in ("fixture-throughput_ops_s-vs-threads", "fixture-peak_rss_bytes-vs-threads",
                 "fixture-garbage-per-epoch", "fixture-peak_rss_bytes-by-reclaimer-t2"):
        assert {f"{stem}.png", f"{stem}.svg", f"{stem}.csv"} <= names, stem
    timelines = [n for n in names if n.startswith("fixture-timeline-")]
    # one config has a timeline in the fixture: its PNG, SVG and CSV, named after the config
    config = next(r["config"] for r in RECORDS if r["config"]["threads"] == 2
                  and r["config"]["reclaimer"] == "ebr")
    assert sorted(timelines) == [f"fixture-timeline-hm_list-ebr-system-t2-w50-50-0-kr"
                                 f"{config['key_range']}-trial0.{ext}"
                                 for ext in ("csv", "png", "svg")]
    assert not any(re.search(r"[0-9a-f]{16}", n) for n in names)      # no hashes
    for p in written:
        data = open(p, "rb").read()
        if p.endswith(".png"):
            assert data[:4] == b"\x89PNG"
            at = data.index(b"pHYs") + 4             # pixels per metre: 200 dpi, not 110
            assert round(int.from_bytes(data[at:at + 4], "big") * 0.0254) == 200
        elif p.endswith(".svg"):
            assert b"<svg" in data[:500]
        else:
            assert p.endswith(".csv") and data.count(b"\n") >= 2
    table = list(csv.reader(open(results_dir / "plots" / "fixture-throughput_ops_s-vs-threads.csv")))
    assert table[0] == ["panel", "reclaimer", "threads", "throughput_ops_s median (Mops/s)",
                        "throughput_ops_s min (Mops/s)", "throughput_ops_s max (Mops/s)",
                        "trials"]
    reclaimers = {r["config"]["reclaimer"] for r in RECORDS}
    assert len(table) == 1 + 2 * len(reclaimers)
    assert {row[1] for row in table[1:]} == reclaimers and {row[6] for row in table[1:]} == {"2"}


def test_report_puts_each_claim_beside_its_plot(results_dir, capsys):
    assert cli.main(["report", str(results_dir)]) == 0
    page = open(capsys.readouterr().out.strip()).read()
    claims = page.split("<div class='claim'>")[1:]
    assert len(claims) == 2
    ops = claims[0]
    assert "every trial did some work" in ops and "data:image/png;base64," in ops
    assert "fixture-ops-vs-threads.csv" in ops     # a plot made for the claim's metric
    assert "checked at thread counts 1, 2" in ops.lower()
    throughput = claims[1]
    assert "fixture-throughput_ops_s-vs-threads.svg, fixture-throughput_ops_s-vs-threads.csv" \
        in throughput
    assert "error bars: min–max over the trials" in throughput
    assert "<h2>Other plots</h2>" in page and "fixture-timeline-" in page


def test_summary_is_a_throughput_table(results_dir, capsys):
    assert cli.main(["summary", str(results_dir)]) == 0
    out = capsys.readouterr().out
    assert "t=1" in out and "t=2" in out
    for reclaimer in {r["config"]["reclaimer"] for r in RECORDS}:
        assert f"\n{reclaimer} " in out


def test_garbage_per_epoch_buckets_events_by_epoch_changes():
    tl = timeline.read(FIXTURES / "smrbench_timeline.csv")
    series = timeline.per_epoch(tl)
    # Each thread's events are in time order, but the file lists thread after thread.
    advances = sorted(tl.of_kind("epoch_advance"), key=lambda e: e.start_ns)
    assert series.epochs == [advances[0].value - 1] + [a.value for a in advances]
    assert sum(series.values) == sum(e.value for e in tl.of_kind("garbage"))


def test_per_epoch_counts_freed_nodes_without_garbage_events(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('# smrbench-timeline 1 {"reclaimer": "debra"}\n'
                    "thread,kind,start_ns,end_ns,value\n"
                    "0,batch_free,5,9,100\n0,epoch_advance,10,10,7\n1,batch_free,10,20,30\n"
                    "1,batch_free,15,25,12\n1,epoch_advance,40,40,8\n0,batch_free,41,45,3\n")
    series = timeline.per_epoch(timeline.read(path))
    assert (series.epochs, series.values) == ([6, 7, 8], [100, 42, 3])
    assert series.what.startswith("nodes freed")


@pytest.mark.parametrize("body, message", [
    ("# smrbench-timeline 2 {}\n", ":1: expected '# smrbench-timeline 1"),
    ('# smrbench-timeline 1 {}\nthread,kind\n', ":2: expected header"),
    ('# smrbench-timeline 1 {}\nthread,kind,start_ns,end_ns,value\n0,nap,1,2,3\n',
     ":3: unknown kind 'nap'"),
    ('# smrbench-timeline 1 {}\nthread,kind,start_ns,end_ns,value\n0,stall,9,2,0\n',
     ":3: end_ns is before start_ns"),
])
def test_malformed_timelines_are_rejected_with_their_line(tmp_path, body, message):
    path = tmp_path / "t.csv"
    path.write_text(body)
    with pytest.raises(timeline.TimelineError, match=message):
        timeline.read(path)


def test_a_timeline_that_is_not_utf8_is_rejected_with_its_path(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"# smrbench-timeline 1 {}\nthread,kind\xff\n")
    with pytest.raises(timeline.TimelineError, match=r"t.csv: not UTF-8 text \(byte 0xff"):
        timeline.read(path)
