"""Command line: smrlab list | run | plot | report | summary. Exit codes: 0 ok, 1 failed trials
or a finding-check error, 2 bad input, 128+signal on SIGINT/SIGTERM (finished trials are kept)."""

import argparse
import os
import signal
import sys
from pathlib import Path

from smrlab import experiment, files, paths, results, runner
from smrlab.errors import BadInput, Failure, Interrupted
from smrlab.smrbench import STOP_SIGNALS
from smrlab.version import version

DEFAULT = "overview"            # the experiment `make bench` runs


def cmd_list(args) -> int:
    status = 0
    for path in experiment.available():
        try:
            e = experiment.load(str(path))
            mark = " (default)" if e.name == DEFAULT else ""
            print(f"{e.name + mark:<16} {e.figure}\n{'':<16} {e.description}")
        except BadInput as err:
            print(f"{path.stem:<16} INVALID: {'; '.join(map(str, err.args))}")
            status = 2
    return status


def cmd_run(args) -> int:
    # Every input is checked before anything runs or is written: the experiment file, the
    # smrbench binary, --out; then (runner.run) the grid against `smrbench --list`.
    problems = []
    e = binary = None
    try:
        e = experiment.load(args.experiment)
    except BadInput as err:
        problems += err.args
    try:
        binary = paths.smrbench_path(args.smrbench)
    except BadInput as err:
        problems += err.args
    out = Path(args.out) if args.out else \
        paths.default_results_dir(e.name, args.quick) if e else None
    if problems:
        if out is not None and (why := paths.output_dir_problem(out)):
            problems.append(why)
        raise BadInput(*problems)
    code = runner.run(e, out, binary, quick=args.quick, allow_mixed=args.allow_mixed,
                      retry_failed=args.retry_failed, move_stale=args.move_stale)
    print(f"next: ./smrlab report {out}", file=sys.stderr)
    return code


def _check_outputs(root: Path, report: bool):
    """plots/ (and report.html) must be writable before any plot is drawn."""
    problems = [p for p in [paths.output_dir_problem(root / "plots", "plots directory"),
                            files.problem(root / "report.html") if report else ""] if p]
    if problems:
        raise BadInput(*problems)


def cmd_plot(args) -> int:
    from smrlab import plots        # matplotlib is only needed from here on
    loaded = results.load(results.resolve_dir(args.target, args.out, args.quick))
    _check_outputs(loaded.root, report=False)
    for fig in plots.make_all(loaded, loaded.root / "plots"):
        for path in (fig.png, fig.svg, fig.csv):
            if path:
                print(path)
    return 0


def cmd_report(args) -> int:
    from smrlab import findings, report
    loaded = results.load(results.resolve_dir(args.target, args.out, args.quick))
    _check_outputs(loaded.root, report=True)
    path, verdicts = report.build(loaded)
    for v in verdicts:
        detail = "; ".join(x for x in (v.checked_at, v.note) if x)
        print(f"[{v.status}] {v.finding.text}" + (f" ({detail})" if detail else ""),
              file=sys.stderr)
    if loaded.failed:
        print(f"warning: {len(loaded.failed)} trials failed; see the report", file=sys.stderr)
    print(path)
    return 1 if any(v.status == findings.ERROR for v in verdicts) else 0


def cmd_summary(args) -> int:
    from smrlab import summary
    print(summary.render(results.load(results.resolve_dir(args.target, args.out, args.quick))))
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="smrlab", description="Experiments, results, plots and reports for smrbench.",
        epilog="Exit codes: 0 ok, 1 failed trials or finding-check error, 2 bad input, "
               "128+signal when stopped by SIGINT (130), SIGTERM (143) or SIGHUP (129). "
               "See docs/smrlab.md.")
    p.add_argument("--version", action="version", version=f"smrlab {version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser("list", help="experiments with the figure each reproduces").set_defaults(
        func=cmd_list)

    run = sub.add_parser("run", help="run an experiment (resumes an interrupted one)")
    run.add_argument("experiment", nargs="?", default=DEFAULT,
                     help=f"name in tools/smrlab/experiments/ or a .toml path (default {DEFAULT})")
    run.add_argument("--quick", action="store_true",
                     help="smoke check: one short trial, threads <= 2, separate results dir")
    run.add_argument("--out", type=_path, help="results directory (default results/EXPERIMENT[-quick])")
    run.add_argument("--smrbench", type=_path, help="smrbench binary (default $SMRBENCH, then "
                                        "build/release/bench/smrbench)")
    run.add_argument("--allow-mixed", action="store_true",
                     help="accept results from another build or machine in the same store")
    run.add_argument("--move-stale", action="store_true",
                     help="if the results directory holds results from another build or "
                          "machine, rename it to DIR.<time> and start afresh (make bench does)")
    run.add_argument("--retry-failed", action="store_true", help="run failed trials again")
    run.set_defaults(func=cmd_run)

    for name, func, text in [("plot", cmd_plot, "write PNG and SVG plots and their CSV tables"),
                             ("report", cmd_report, "write the HTML report and print its path"),
                             ("summary", cmd_summary, "throughput table on the terminal")]:
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("target", metavar="EXPERIMENT|RESULTS_DIR", nargs="?", default=DEFAULT)
        cmd.add_argument("--quick", action="store_true", help="the results of a --quick run")
        cmd.add_argument("--out", type=_path, help="results directory, if not the default")
        cmd.set_defaults(func=func)
    return p


def _path(text: str) -> str:
    # An empty value would otherwise fall back to the default without a word.
    if not text:
        raise argparse.ArgumentTypeError("an empty path: give one, or leave the option out for the default")
    return text


def _stop(signum, frame):
    raise Interrupted(signum)


def _install_stop_handlers() -> dict:
    """SIGINT, SIGTERM and SIGHUP stop smrlab cleanly (finished trials kept, no partial file);
    a signal ignored when smrlab starts (SIGHUP under nohup) stays ignored."""
    previous = {}
    for s in STOP_SIGNALS:
        if signal.getsignal(s) is signal.SIG_IGN:
            continue
        previous[s] = signal.signal(s, _stop)
    return previous


def main(argv: list | None = None) -> int:
    args = parser().parse_args(argv)
    previous = _install_stop_handlers()
    try:
        return args.func(args)
    except BadInput as e:
        for problem in e.args:
            print(f"smrlab: error: {problem}", file=sys.stderr)
        return 2
    except Failure as e:
        print(f"smrlab: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:     # `smrlab list | head`: the reader left; nothing to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    except OSError as e:        # the disk, not the user: say which file, without a traceback
        where = f"{e.filename}: " if e.filename else ""
        print(f"smrlab: {where}{e.strerror or e}", file=sys.stderr)
        return 1
    except (Interrupted, KeyboardInterrupt) as e:
        signum = e.signum if isinstance(e, Interrupted) else signal.SIGINT
        print(f"smrlab: stopped by {signal.Signals(signum).name}; finished trials are kept, run "
              f"the same command to resume", file=sys.stderr)
        return 128 + signum
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
