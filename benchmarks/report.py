"""`make bench`: runs the side-by-side benchmarks and writes docs/benchmarks.md with charts.

The kernel suite (`kernels.py`, both sizes, every engine) gives per-kernel speedups over
NumPy and the first calls (compile included); `dispatch.py` gives the cost of one call.
The charts (matplotlib, from the `bench` extra) go to docs/benchmarks/*.png.

Usage::

    python benchmarks/report.py                  # the full run, a few minutes
    python benchmarks/report.py --sizes small    # one size
"""

import argparse
import datetime
import os
import pathlib
import platform
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import dispatch  # noqa: E402
import kernels  # noqa: E402

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs"
COLORS = {"solvent": "#1f77b4", "jax": "#ff7f0e", "numba": "#2ca02c"}
LABELS = {"solvent": "solvent.jit", "jax": "jax.jit (port)", "numba": "numba.njit"}


def _bars(ax, names, series, log=True):
    """Grouped horizontal bars: one group per name, one bar per engine of `series`."""
    height = 0.8 / len(series)
    y = np.arange(len(names))
    for k, (engine, values) in enumerate(series.items()):
        ax.barh(y + k * height, [values.get(n, np.nan) for n in names], height, label=LABELS.get(engine, engine),
                color=COLORS.get(engine))
    ax.set_yticks(y + height * (len(series) - 1) / 2, names)
    ax.invert_yaxis()
    if log:
        ax.set_xscale("log")
    ax.legend(loc="lower right")


def speedup_chart(table, engines, size, path):
    names = list(table)
    fig, ax = plt.subplots(figsize=(8, 0.28 * len(names) * len(engines) / 2 + 1.5))
    _bars(ax, names, {e: kernels.speedups(table, e) for e in engines})
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel("speedup over NumPy (log scale; right of the line is faster)")
    ax.set_title(f"Kernels, {size} size: speedup over NumPy")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def first_call_chart(table, engines, size, path):
    names = list(table)
    firsts = {e: {n: r[e]["first"] for n, r in table.items() if "error" not in r.get(e, {"error": 1})}
              for e in engines}
    fig, ax = plt.subplots(figsize=(8, 0.28 * len(names) * len(engines) / 2 + 1.5))
    _bars(ax, names, firsts)
    ax.set_xlabel("first call, compile included (s, log scale)")
    ax.set_title(f"Kernels, {size} size: first call")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def call_chart(times, path):
    rows = [("ndarray", "solvent.jit"), ("ndarray", "jax.jit"), ("mutating ndarray", "solvent.jit"),
            ("mutating ndarray", "jax.jit + np.copyto"), ("solvent.Array", "solvent.jit"),
            ("solvent.Array", "jax.jit")]
    fig, ax = plt.subplots(figsize=(8, 3))
    ax.barh(range(len(rows)), [times[r] for r in rows],
            color=[COLORS["solvent"] if r[1] == "solvent.jit" else COLORS["jax"] for r in rows])
    ax.set_yticks(range(len(rows)), [f"{a}: {b}" for a, b in rows])
    ax.invert_yaxis()
    ax.set_xlabel("µs per call (16 float64 elements)")
    ax.set_title("Cost of one call")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _table(table, engines):
    lines = ["| kernel | NumPy ms | " + " | ".join(f"{LABELS[e]} ms (speedup)" for e in engines)
             + " | " + " | ".join(f"{LABELS[e]} first call s" for e in engines) + " |",
             "| --- " * (2 + 2 * len(engines)) + "|"]
    for name, rows in table.items():
        cells = [f"{rows['numpy']['best'] * 1e3:.3f}"]
        cells += [rows[e]["error"] if "error" in rows[e] else
                  f"{rows[e]['best'] * 1e3:.3f} ({rows['numpy']['best'] / rows[e]['best']:.2f}x)" for e in engines]
        cells += ["" if "error" in rows[e] else f"{rows[e]['first']:.2f}" for e in engines]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _summary(table, engines):
    lines = []
    for engine in engines:
        s = kernels.speedups(table, engine)
        lines.append(f"- {LABELS[engine]}: geomean **{kernels.geomean(list(s.values())):.2f}x** over NumPy "
                     f"on {len(s)} kernels; slower than NumPy: {', '.join(s_ for s_, v in s.items() if v < 1) or 'none'}.")
    if "numba" in engines:
        compiled = kernels.speedups(table, "numba")
        same = kernels.speedups(table, "solvent", among=compiled)
        lines.append(f"- On the {len(same)} kernels numba compiles: solvent {kernels.geomean(list(same.values())):.2f}x, "
                     f"numba {kernels.geomean([compiled[n] for n in same]):.2f}x.")
    return lines


def write(results, engines, times, out):
    (DOCS / "benchmarks").mkdir(exist_ok=True)
    call_chart(times, DOCS / "benchmarks" / "calls.png")
    text = ["# Benchmarks", "",
            f"Written by `make bench` (`benchmarks/report.py`) on {datetime.date.today()}, "
            f"{platform.machine()}, {os.cpu_count()} cores, one process, ndarrays in for every engine.",
            "solvent and numba run the same NumPy source; jax.jit runs a hand-written `jax.numpy` port of "
            "the same algorithm. Times are the best of several calls on fresh arguments, first calls one call "
            "with its compile; outputs are checked "
            "against NumPy (rtol 1e-10; durbin and ludcmp, whose data amplify rounding in every engine, 1e-7 and "
            "1e-8). The kernels are in `benchmarks/polybench/` and "
            "`benchmarks/classic.py`.", ""]
    for size, table in results.items():
        speedup_chart(table, engines, size, DOCS / "benchmarks" / f"speedup_{size}.png")
        first_call_chart(table, engines, size, DOCS / "benchmarks" / f"first_call_{size}.png")
        text += [f"## Kernels, {size} size", "", *_summary(table, engines), "",
                 f"![speedup over NumPy, {size}](benchmarks/speedup_{size}.png)", "",
                 f"![first call, {size}](benchmarks/first_call_{size}.png)", "", *_table(table, engines), ""]
    text += ["## Cost of one call", "", "![call cost](benchmarks/calls.png)", "",
             "| arguments | runtime | µs per call |", "| --- | --- | --- |",
             *[f"| {a} | {b} | {t:.2f} |" for (a, b), t in times.items()], ""]
    out.write_text("\n".join(text))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="small,medium")
    parser.add_argument("--out", default=str(DOCS / "benchmarks.md"))
    options = parser.parse_args(argv)
    engines = kernels.available_engines(list(kernels.PEERS))
    results = kernels.run_suite(kernels.ALL, options.sizes.split(","), engines)
    kernels.report(results, engines)
    times = dispatch.dispatch_times(20_000, 7)
    write(results, engines, times, pathlib.Path(options.out))
    print(f"wrote {options.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
