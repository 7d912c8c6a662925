"""One plot style everywhere: a reclaimer's colour and marker do not depend on the grid, its
family shares a hue, _af variants are dashed, y starts at 0, panels in a row share y, log axes
where the experiment asks, legible fonts."""

import json

import matplotlib.colors as mcolors
import pytest
from conftest import FAKE, TINY

from smrlab import cli, plots, style


@pytest.fixture
def drawn(monkeypatch):
    """Every figure plots.make_all saves, inspected before it is closed."""
    seen = []
    real = plots._save

    def keep(fig, out_dir, name, title, table=None, **info):
        axes = [ax for ax in fig.axes if ax.get_visible()]
        lines = {}
        for ax in axes:
            for container in ax.containers:
                line = getattr(container, "lines", [None])[0]
                if line is not None and container.get_label():
                    lines[container.get_label()] = (mcolors.to_hex(line.get_color()),
                                                    line.get_marker(), line.get_linestyle(),
                                                    mcolors.to_hex(line.get_markerfacecolor()))
        seen.append({"name": name, "axes": axes, "lines": lines, "fig": fig})
        return real(fig, out_dir, name, title, table, **info)
    monkeypatch.setattr(plots, "_save", keep)
    return seen


def run_and_plot(path, out) -> None:
    assert cli.main(["run", str(path), "--smrbench", str(FAKE), "--out", str(out)]) == 0
    assert cli.main(["plot", str(out)]) == 0


def test_a_reclaimer_looks_the_same_in_two_experiments(experiment_file, tmp_path, fake, drawn,
                                                       capsys):
    first = experiment_file(TINY, name="first")
    second = experiment_file(
        TINY.replace('reclaimer = ["none", "ebr", "hp"]', 'reclaimer = ["hp", "qsbr", "ebr"]')
        .replace('ds = ["hm_list"]', 'ds = ["hm_list", "harris_list"]')
        .replace('denominator = { reclaimer = "none" }', 'denominator = { reclaimer = "qsbr" }'),
        name="second")
    run_and_plot(first, tmp_path / "a")
    looks_a = next(d for d in drawn if d["name"] == "first-throughput_ops_s-vs-threads")["lines"]
    drawn.clear()
    run_and_plot(second, tmp_path / "b")
    looks_b = next(d for d in drawn if d["name"] == "second-throughput_ops_s-vs-threads")["lines"]
    assert looks_a["ebr"] == looks_b["ebr"] and looks_a["hp"] == looks_b["hp"]
    assert looks_a["ebr"][:2] == (style.RECLAIMERS["ebr"][1], style.RECLAIMERS["ebr"][2])
    assert looks_a["none"][0] == "#737373"          # the baseline is grey
    assert len({v[:2] for v in {**looks_a, **looks_b}.values()}) == 4


def test_the_table_gives_every_reclaimer_its_own_look_and_families_related_hues():
    pairs = [(c, m) for _, c, m in style.RECLAIMERS.values()]
    assert len(set(pairs)) == len(pairs) and len({c for c, _ in pairs}) == len(pairs)
    hue = {"epoch": "blue", "pointer": "green", "interval": "orange", "neutralization": "red",
           "external": "purple"}
    for name, (family, colour, _) in style.RECLAIMERS.items():
        r, g, b = mcolors.to_rgb(colour)
        dominant = {"blue": b > r and b >= g, "green": g > r and g > b,
                    "orange": r > g > b, "red": r > 2 * g and r > 2 * b,
                    "purple": b > g and r > g,
                    None: abs(r - g) < 0.01 and abs(g - b) < 0.01}[hue.get(family)]
        assert dominant, (name, colour)
    for name in ("qsbr", "ebr", "debra", "nebr", "rcu", "token", "token_pass_first", "token_naive"):
        assert style.RECLAIMERS[name][0] == "epoch"
    for name in ("hp", "hp_asym", "he", "lfrc"):
        assert style.RECLAIMERS[name][0] == "pointer"
    for name in ("ibr_2ge", "poibr", "tag_ibr", "tag_ibr_faa", "wfe"):
        assert style.RECLAIMERS[name][0] == "interval"
    for name in ("nbr", "nbr_plus"):
        assert style.RECLAIMERS[name][0] == "neutralization"
    for name in ("urcu_qsbr", "urcu_memb", "ck_epoch", "cds_hp", "cds_dhp"):
        assert style.RECLAIMERS[name][0] == "external"


def test_amortized_free_variants_are_dashed_with_the_base_look():
    base, af = style.look("debra"), style.look("debra_af")
    assert (af.colour, af.marker) == (base.colour, base.marker)
    assert base.linestyle == "-" and af.linestyle == "--" and af.hollow and not base.hollow
    unknown = style.look("brand_new")
    assert unknown == style.look("brand_new") and unknown.family == "other"
    two = style.looks([("debra-b64", "debra"), ("debra-b8", "debra"), ("ebr", "ebr")])
    assert two["debra-b64"].colour == two["debra-b8"].colour
    assert two["debra-b64"].linestyle != two["debra-b8"].linestyle


def test_axes_start_at_zero_share_y_in_a_row_and_use_legible_fonts(experiment_file, tmp_path,
                                                                   fake, drawn, capsys,
                                                                   monkeypatch):
    path = experiment_file(TINY.replace('ds = ["hm_list"]', 'ds = ["hm_list", "harris_list"]')
                           .replace('reclaimer = ["none", "ebr", "hp"]',
                                    'reclaimer = ["none", "ebr", "ebr_af"]')
                           .replace('numerator = { reclaimer = "hp" }',
                                    'numerator = { reclaimer = "ebr" }'))
    listing = {"data_structures": ["hm_list", "harris_list"], "reclaimers": ["none", "ebr", "ebr_af"],
               "allocators": ["system"], "compatible": [[d, r] for d in ["hm_list", "harris_list"]
                                                        for r in ["none", "ebr", "ebr_af"]]}
    monkeypatch.setenv("FAKE_LIST", json.dumps(listing))
    run_and_plot(path, tmp_path / "r")
    lines = next(d for d in drawn if d["name"] == "tiny-throughput_ops_s-vs-threads")
    left, right = lines["axes"]
    assert left.get_ylim()[0] == 0 and right.get_ylim() == left.get_ylim()
    assert left.get_shared_y_axes().joined(left, right)
    assert lines["lines"]["ebr_af"][2] == "--" and lines["lines"]["ebr"][2] == "-"
    assert lines["lines"]["ebr_af"][3] == "#ffffff"                   # hollow marker
    assert min(t.get_fontsize() for t in left.get_xticklabels() + [left.title]) >= 10
    memory = next(d for d in drawn if d["name"] == "tiny-peak_rss_bytes-vs-threads")
    assert all(ax.get_ylim()[0] == 0 for ax in memory["axes"])


def test_hart_fig8_is_log_log_as_in_the_paper():
    from smrlab import experiment
    e = experiment.load("hart_fig8")
    assert e.plots.logx and e.plots.logy == ["ns_per_op"]


def test_a_log_axis_is_drawn_log(experiment_file, tmp_path, fake, drawn, capsys):
    path = experiment_file(TINY.replace("[run]", "[plots]\nlogy = [\"ns_per_op\"]\n"
                                        "metrics = [\"ns_per_op\", \"throughput_ops_s\"]\n[run]"))
    run_and_plot(path, tmp_path / "r")
    ns = next(d for d in drawn if d["name"] == "tiny-ns_per_op-vs-threads")
    assert ns["axes"][0].get_yscale() == "log"
    ops = next(d for d in drawn if d["name"] == "tiny-throughput_ops_s-vs-threads")
    assert ops["axes"][0].get_yscale() == "linear" and ops["axes"][0].get_ylim()[0] == 0


def test_panels_of_very_different_scale_keep_their_own_y_axis_and_none_is_clipped():
    """A hash map (tens of Mops/s) beside a list (tenths) must not flatten the list, and a
    panel drawn after the first must not be cut off at the first one's top."""
    import matplotlib.pyplot as plt
    from smrlab import plots
    fig, axes = plots._grid(3)
    axes[0].plot([1, 2], [10, 40])
    axes[1].plot([1, 2], [20, 65])        # higher than the first panel: must not be clipped
    axes[2].plot([1, 2], [0.05, 0.09])    # 700x smaller: its own scale
    for ax in axes:
        ax.set_ylabel("throughput")
    plots._share_y(axes)
    big, bigger, small = axes
    assert big.get_ylim()[0] == 0 and big.get_ylim() == bigger.get_ylim()
    assert big.get_ylim()[1] >= 65
    assert big.get_shared_y_axes().joined(big, bigger)
    assert not big.get_shared_y_axes().joined(big, small)
    assert small.get_ylim()[0] == 0 and 0.09 <= small.get_ylim()[1] < 1
    assert big.get_ylabel() == "throughput" and bigger.get_ylabel() == "" \
        and small.get_ylabel() == "throughput"
    plt.close(fig)
