"""plot_run.py RUN_DIR: the picture of a run (called by scripts/plot-run).

Reads RUN_DIR/metrics.csv (one row per epoch, written by cifar-train) and
RUN_DIR/confusion.csv (the last evaluation's confusion matrix, rows = true
class) and writes RUN_DIR/plots.png: loss and accuracy (train and test) and
the learning rate against epochs, and the confusion matrix with class names,
coloured by row share (recall) and annotated with counts.
"""
import csv
import os
import sys

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


def plot_curves(ax, epochs, rows, key, label, percent=False):
    scale = 100 if percent else 1
    for split, style in (("train", "o-"), ("val", "^-"), ("test", "s-")):
        values = [r.get(f"{split}_{key}") for r in rows]
        if any(v is None for v in values):
            continue  # no validation split in this run
        ax.plot(epochs, [v * scale for v in values], style, label=split)
    ax.set_xlabel("epoch")
    ax.set_ylabel(label)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)
    ax.legend()


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

    fig, axes = plt.subplots(2, 2, figsize=(14, 11))
    plot_curves(axes[0][0], epochs, rows, "loss", "cross-entropy loss")
    axes[0][0].set_title("loss")
    plot_curves(axes[0][1], epochs, rows, "accuracy", "accuracy (%)", percent=True)
    axes[0][1].set_title("accuracy")
    ax = axes[1][0]
    ax.plot(epochs, [r["lr"] for r in rows], "o-", color="tab:green", label="learning rate")
    ax.set_title("learning rate (at the end of each epoch)")
    ax.set_xlabel("epoch")
    ax.set_ylabel("learning rate")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
    ax.grid(alpha=0.3)
    ax.legend()

    confusion = os.path.join(run, "confusion.csv")
    ax = axes[1][1]
    if os.path.isfile(confusion):
        names, counts = read_confusion(confusion)
        plot_confusion(ax, fig, names, counts)
        ax.set_title(f"confusion matrix, epoch {epochs[-1]} (test set)")
    else:
        ax.axis("off")
        ax.text(0.5, 0.5, "no confusion.csv in this run folder", ha="center", va="center")

    last = rows[-1]
    fig.suptitle(f"{os.path.basename(os.path.abspath(run))}: {len(rows)} epochs, "
                 f"test accuracy {100 * last['test_accuracy']:.2f}%", fontsize=14)
    fig.tight_layout()
    out = os.path.join(run, "plots.png")
    fig.savefig(out, dpi=100)
    print(out)


if __name__ == "__main__":
    main()
