"""plot_run.py RUN_DIR: the picture of a run (called by scripts/plot-run).

Reads RUN_DIR/metrics.csv (one row per epoch, written by cifar-train) and
RUN_DIR/confusion.csv (the last evaluation's confusion matrix, rows = true
class) and writes RUN_DIR/plots.png: loss and accuracy (train, validation
and test, those the run has) and the learning rate against epochs, the
running training loss against steps
(from the TensorBoard event file, when the run had --tensorboard), and the
confusion matrix with class names, coloured by row share (recall) and
annotated with counts. The title names the run's settings from config.toml.
A run without a test split (--val-split on data that has none) has empty test
cells on every row that has validation figures: its title gives the
validation accuracy and says there is no test split.
"""
import csv
import glob
import os
import sys
import tomllib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402


def fail(message, status=1):
    print(f"plot-run: {message}", file=sys.stderr)
    sys.exit(status)


def read_metrics(path):
    rows = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            # Empty cells (val_* without --val-split) become None; a resumed run: last row wins.
            rows[int(row["epoch"])] = {k: float(v) if v not in ("", None) else None
                                       for k, v in row.items()}
    return [rows[e] for e in sorted(rows)]


def read_confusion(path):
    with open(path, newline="") as f:
        table = list(csv.reader(f))
    if len(table) < 2:
        fail(f"{path} holds no confusion matrix (a header row, then one row per true class)")
    names = table[0][1:]
    counts = [[int(v) for v in row[1:]] for row in table[1:]]
    if [row[0] for row in table[1:]] != names or any(len(r) != len(names) for r in counts):
        fail(f"{path} is not a square table with the same class names on both sides")
    return names, counts


def has_test_split(rows):
    """False when an evaluated epoch (one with validation figures) has no test figures."""
    return not any(r.get("val_accuracy") is not None and r.get("test_accuracy") is None
                   for r in rows)


def plot_curves(ax, epochs, rows, key, label, percent=False):
    scale = 100 if percent else 1
    for split, style in (("train", "o-"), ("val", "^-"), ("test", "s-")):
        # Empty cells: no validation split, or an epoch --eval-every skipped.
        points = [(e, r.get(f"{split}_{key}")) for e, r in zip(epochs, rows)]
        points = [(e, v * scale) for e, v in points if v is not None]
        if points:
            ax.plot([e for e, _ in points], [v for _, v in points], style, label=split)
    ax.set_xlabel("epoch")
    ax.set_ylabel(label)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)
    ax.legend()


def describe_result(rows, tested):
    """The title's figure: the last test accuracy, or without a test split the validation's."""
    split, key = ("test", "test_accuracy") if tested else ("validation", "val_accuracy")
    done = [r for r in rows if r.get(key) is not None]
    if not done:
        return "not evaluated yet"
    figure = f"{split} accuracy {100 * done[-1][key]:.2f}% (epoch {int(done[-1]['epoch'])})"
    return figure if tested else f"no test split, {figure}"


def read_settings(run):
    """The settings that shape the run, as one title line, from config.toml ("" if absent)."""
    path = os.path.join(run, "config.toml")
    try:
        with open(path, "rb") as f:
            c = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError):
        return ""
    keys = [("recipe", "recipe"), ("model", "model"), ("epochs", "epochs"),
            ("batch-size", "batch"), ("lr", "lr"), ("schedule", "schedule"), ("amp", "amp"),
            ("augment", "augment"), ("train-limit", "train-limit"), ("seed", "seed"),
            ("device", "device")]
    return ", ".join(f"{label} {c[key]}" for key, label in keys
                     if key in c and not (key == "train-limit" and c[key] == 0))


def read_running_loss(run):
    """(steps, losses) of train/running_loss from the run's event files, or None."""
    if not glob.glob(os.path.join(run, "events.out.tfevents.*")):
        return None
    try:
        from tensorboard.backend.event_processing import event_accumulator as ea
    except ImportError:
        return None
    acc = ea.EventAccumulator(run, size_guidance={ea.SCALARS: 0})
    acc.Reload()
    if "train/running_loss" not in acc.Tags().get("scalars", []):
        return None
    points = {e.step: e.value for e in acc.Scalars("train/running_loss")}  # a resume: last wins
    steps = sorted(points)
    return steps, [points[s] for s in steps]


def plot_running_loss(ax, run):
    series = read_running_loss(run)
    ax.set_title("running training loss (mean over the epoch so far)")
    if series is None:
        ax.axis("off")
        ax.text(0.5, 0.5, "no per-step loss: no TensorBoard event file (--no-tensorboard?)",
                ha="center", va="center")
        return
    ax.plot(series[0], series[1], "-", color="tab:blue", linewidth=1)
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy loss")
    ax.grid(alpha=0.3)


def plot_confusion(ax, fig, names, counts):
    shares = [[c / max(1, sum(row)) for c in row] for row in counts]
    image = ax.imshow(shares, cmap="Blues", vmin=0, vmax=1)
    n = len(names)
    ax.set_xticks(range(n), names, rotation=45, ha="right")
    ax.set_yticks(range(n), names)
    ax.set_xlabel("predicted class")
    ax.set_ylabel("true class")
    for r in range(n):
        for c in range(n):
            ax.text(c, r, counts[r][c], ha="center", va="center", fontsize=8,
                    color="white" if shares[r][c] > 0.5 else "black")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="share of the true class")


def main():
    if len(sys.argv) != 2:
        fail("usage: scripts/plot-run RUN_DIR", 2)
    run = sys.argv[1]
    metrics = os.path.join(run, "metrics.csv")
    if not os.path.isfile(metrics):
        fail(f"{metrics} does not exist: RUN_DIR must be a folder cifar-train wrote (--run-dir)", 2)
    rows = read_metrics(metrics)
    if not rows:
        fail(f"{metrics} has no epochs yet: plot again after the first epoch ends")
    epochs = [int(r["epoch"]) for r in rows]

    fig = plt.figure(figsize=(20, 11))
    grid = fig.add_gridspec(2, 3)
    ax = fig.add_subplot(grid[0, 0])
    plot_curves(ax, epochs, rows, "loss", "cross-entropy loss")
    ax.set_title("loss")
    ax = fig.add_subplot(grid[0, 1])
    plot_curves(ax, epochs, rows, "accuracy", "accuracy (%)", percent=True)
    ax.set_title("accuracy")
    plot_running_loss(fig.add_subplot(grid[0, 2]), run)
    ax = fig.add_subplot(grid[1, 0])
    ax.plot(epochs, [r["lr"] for r in rows], "o-", color="tab:green", label="learning rate")
    ax.set_title("learning rate (at the end of each epoch)")
    ax.set_xlabel("epoch")
    ax.set_ylabel("learning rate")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
    ax.grid(alpha=0.3)
    ax.legend()

    confusion = os.path.join(run, "confusion.csv")
    ax = fig.add_subplot(grid[1, 1:])
    tested = has_test_split(rows)
    if not tested:
        ax.axis("off")
        ax.text(0.5, 0.5, "no confusion matrix: the run has no test split", ha="center",
                va="center")
    elif os.path.isfile(confusion):
        names, counts = read_confusion(confusion)
        plot_confusion(ax, fig, names, counts)
        ax.set_title(f"confusion matrix, epoch {epochs[-1]} (test set)")
    else:
        ax.axis("off")
        ax.text(0.5, 0.5, "no confusion.csv in this run folder", ha="center", va="center")

    result = describe_result(rows, tested)
    settings = read_settings(run)
    fig.suptitle(f"{os.path.basename(os.path.abspath(run))}: {len(rows)} epochs, {result}"
                 + (f"\n{settings}" if settings else ""), fontsize=14)
    fig.tight_layout()
    out = os.path.join(run, "plots.png")
    # Written whole beside it, then renamed over it: a plots.png that is a link
    # (to metrics.csv, say) is replaced, never written through.
    partial = os.path.join(run, f".plots.png.{os.getpid()}.tmp")
    try:
        fig.savefig(partial, dpi=100, format="png")
        os.replace(partial, out)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    print(out)


if __name__ == "__main__":
    main()
