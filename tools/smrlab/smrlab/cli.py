"""Command line: smrlab list | run | plot | report | summary. Exit codes: 0 ok, 1 failed trials
or a finding-check error, 2 bad input, 130 interrupted (finished trials are kept)."""

import argparse
import sys
from pathlib import Path

from smrlab import experiment, paths, results, runner
from smrlab.errors import BadInput, Failure

DEFAULT = "overview"            # the experiment `make bench` runs


def cmd_list(args) -> int:
    status = 0
    for path in experiment.available():
        try:
            e = experiment.load(str(path))
            mark = " (default)" if e.name == DEFAULT else ""
            print(f"{e.name + mark:<16} {e.figure}\n{'':<16} {e.description}")
        except BadInput as err:
            print(f"{path.stem:<16} INVALID: {err}")
            status = 2
    return status


def cmd_run(args) -> int:
    e = experiment.load(args.experiment)          # a bad file stops here, before any write
    binary = paths.smrbench_path(args.smrbench)
    out = Path(args.out) if args.out else paths.default_results_dir(e.name, args.quick)
    code = runner.run(e, out, binary, quick=args.quick, allow_mixed=args.allow_mixed,
                      retry_failed=args.retry_failed)
    print(f"next: ./smrlab report {out}", file=sys.stderr)
    return code


def cmd_plot(args) -> int:
    from smrlab import plots        # matplotlib is only needed from here on
    loaded = results.load(results.resolve_dir(args.target, args.out, args.quick))
    for fig in plots.make_all(loaded, loaded.root / "plots"):
        print(fig.png)
        print(fig.svg)
    return 0


def cmd_report(args) -> int:
    from smrlab import findings, report
    loaded = results.load(results.resolve_dir(args.target, args.out, args.quick))
    path, verdicts = report.build(loaded)
    for v in verdicts:
        print(f"[{v.status}] {v.finding.text}" + (f" ({v.note})" if v.note else ""), file=sys.stderr)
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
               "130 interrupted. See docs/smrlab.md.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser("list", help="experiments with the figure each reproduces").set_defaults(
        func=cmd_list)

    run = sub.add_parser("run", help="run an experiment (resumes an interrupted one)")
    run.add_argument("experiment", nargs="?", default=DEFAULT,
                     help=f"name in tools/smrlab/experiments/ or a .toml path (default {DEFAULT})")
    run.add_argument("--quick", action="store_true",
                     help="smoke check: one short trial, threads <= 2, separate results dir")
    run.add_argument("--out", help="results directory (default results/EXPERIMENT[-quick])")
    run.add_argument("--smrbench", help="smrbench binary (default $SMRBENCH, then "
                                        "build/release/bench/smrbench)")
    run.add_argument("--allow-mixed", action="store_true",
                     help="accept results from another build or machine in the same store")
    run.add_argument("--retry-failed", action="store_true", help="run failed trials again")
    run.set_defaults(func=cmd_run)

    for name, func, text in [("plot", cmd_plot, "write PNG and SVG plots"),
                             ("report", cmd_report, "write the HTML report and print its path"),
                             ("summary", cmd_summary, "throughput table on the terminal")]:
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("target", metavar="EXPERIMENT|RESULTS_DIR", nargs="?", default=DEFAULT)
        cmd.add_argument("--quick", action="store_true", help="the results of a --quick run")
        cmd.add_argument("--out", help="results directory, if not the default")
        cmd.set_defaults(func=func)
    return p


def main(argv: list | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except BadInput as e:
        print(f"smrlab: error: {e}", file=sys.stderr)
        return 2
    except Failure as e:
        print(f"smrlab: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nsmrlab: interrupted; finished trials are kept, run the same command to resume",
              file=sys.stderr)
        return 130
