"""bench_report.py: run_bench.py's markdown tables, from the results of its runs.

table() gives one row per case and variant (medians over the rounds, and
C++ over Python); busy_summary() gives issue 12's section: the fraction of
idle throughput kept beside busy processes, and the targets with PASS/MISS.
"""

import statistics

from bench_cases import BUSY, KEPT_TARGET
from bench_common import BUSY_CODE


def label_of(variant, args):
    return variant.label.format(threads=args.threads)


def format_memory(nbytes, on_gpu):
    kind = "GPU" if on_gpu else "RSS"
    if nbytes >= 1 << 30:
        return f"{nbytes / (1 << 30):.2f} GiB {kind}"
    return f"{nbytes / (1 << 20):.0f} MiB {kind}"


def median_speed(results):
    return statistics.median(r.images_per_second for r in results) if results else None


def table(rows, args):
    """rows: (case, variant, [Result]) in order; returns the markdown table."""
    python_speed = {}  # (case name, busy) -> [(label, median img/s)]
    for case, variant, results in rows:
        if variant.impl == "python" and results:
            python_speed.setdefault((case.name, variant.busy), []).append(
                (label_of(variant, args), median_speed(results)))
    lines = [
        "| case | impl | median img/s | median epoch s | test acc | peak mem | C++/Python |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for case, variant, results in rows:
        label = label_of(variant, args)
        if not results:
            lines.append(f"| {case.name} | {label} | failed | | | | |")
            continue
        speed = median_speed(results)
        seconds = statistics.median(r.epoch_seconds for r in results)
        accuracy = statistics.median(r.test_accuracy for r in results)
        memory = statistics.median(r.peak_memory_bytes for r in results)
        ratio = ""
        if variant.impl == "cpp":
            ratios = [(other_label, speed / other)
                      for other_label, other in python_speed.get((case.name, variant.busy), [])]
            if len(ratios) == 1:
                ratio = f"{ratios[0][1]:.2f}x"
            else:
                ratio = "; ".join(f"{r:.2f}x vs {other_label}" for other_label, r in ratios)
        lines.append(
            f"| {case.name} | {label} | {speed:,.0f} | {seconds:.2f} | {accuracy:.4f} "
            f"| {format_memory(int(memory), case.on_gpu)} | {ratio} |"
        )
    return "\n".join(lines)


def busy_summary(rows, args):
    """Issue 12's section: fraction of idle throughput kept, and the targets with PASS/MISS."""
    lines = [
        f"Beside {BUSY} busy process(es) (`python3 -c '{BUSY_CODE}'`, each spinning on one "
        "core); C++ runs without --threads or OMP_NUM_THREADS (cifar-train's default plan); "
        "idle and busy runs alternate (ABBA over rounds). Python: tensor loader.",
        "",
        "| case | C++ default idle | C++ default busy | kept | Python busy, per thread count "
        "| C++ busy / best Python busy |",
        "|---|---:|---:|---:|---|---:|",
    ]
    targets = []
    busy_cases = {case.name: case for case, _, _ in rows if case.busy}  # in order, once each
    for case in busy_cases.values():
        mine = [(variant, results) for c, variant, results in rows if c is case]
        idle = next(results for v, results in mine if v.impl == "cpp" and not v.busy)
        busy = next(results for v, results in mine if v.impl == "cpp" and v.busy)
        python = [(v.threads or args.threads, median_speed(results)) for v, results in mine
                  if v.impl == "python"]
        chosen = sorted({r.threads for r in idle + busy if r.threads})
        threads = (f"; C++ chose {'/'.join(map(str, chosen))} thread"
                   + ("s" if chosen != [1] else "")) if chosen else ""
        kept = median_speed(busy) / median_speed(idle) if idle and busy else None
        measured_python = [speed for _, speed in python if speed is not None]
        best = max(measured_python) if len(measured_python) == len(python) else None
        ahead = median_speed(busy) / best if busy and best else None
        idle_by_round = {r.round: r.images_per_second for r in idle}
        per_round = ", ".join(f"{b.images_per_second / idle_by_round[b.round]:.2f}"
                              for b in busy if b.round in idle_by_round)

        def cell(x, fmt):
            return "failed" if x is None else format(x, fmt)

        lines.append(
            f"| {case.name} (batch {case.batch_size}{threads}) "
            f"| {cell(median_speed(idle), ',.0f')} | {cell(median_speed(busy), ',.0f')} "
            f"| {cell(kept, '.2f')} (per round: {per_round}) "
            f"| " + "; ".join(f"{n} thr: {cell(speed, ',.0f')}" for n, speed in python)
            + f" | {cell(ahead, '.2f')}{'x' if ahead else ''} |")
        for what, value, unit, goal, ok in [
            (f"batch {case.batch_size}: C++ default busy / idle", kept, "", f">= {KEPT_TARGET:.2f}",
             kept is not None and kept >= KEPT_TARGET),
            (f"batch {case.batch_size}: C++ default busy / best Python busy", ahead, "x", "> 1.00x",
             ahead is not None and ahead > 1.0),
        ]:
            verdict = "**PASS**" if ok else "**MISS**"
            verdict += " (a run failed)" if value is None else ""
            measured = "failed" if value is None else f"{value:.2f}{unit}"
            targets.append(f"| {what} | {measured} | {goal} | {verdict} |")
    lines += ["", "| target | measured | goal | result |", "|---|---:|---:|---|"] + targets
    return "\n".join(lines)
