"""Trains indexer's learned ranking: LambdaMART (LightGBM's lambdarank objective) over the
features `indexer eval --export-features` writes, one group a question, a note on a gold page
the positive label.

Judged as the product uses it: out of fold, by document. Each fold's questions are scored by a
model trained on the other folds; the number of boosting rounds of that model is chosen inside
its training folds (each training fold held out in turn), never on the fold it is judged on.
The figures are the evidence set of `fused-cap` (at most one note a page before any second) at
B = 3, 5, 10 and the page ranking's R@1 / 3 / 5 (pages by their best note), for the learned
score and for the first stage's fused score on the same candidates. A gold page no candidate
holds counts as missed for both.

Run through tools/train-ranker, which installs LightGBM.
"""

import argparse
import csv
import json
import math
import subprocess
import sys
from collections import OrderedDict, defaultdict
from pathlib import Path

import lightgbm as lgb
import numpy as np

KEYS = ["question", "fold", "doc", "note", "page", "gold", "label"]
BUDGETS = [3, 5, 10]
PAGE_KS = [1, 3, 5]
# Fixed settings of the trees; only the number of rounds is chosen, inside the training folds.
# Small trees (three leaves, at least 50 candidates a leaf): with a few hundred questions,
# trees of 15 leaves learned the training folds (recall@10 91 to 95 in fold) and lost to the
# fused ranking out of fold (docs/evaluation.md, "Learned ranking").
PARAMS = {
    "objective": "lambdarank",
    "metric": "ndcg",
    "learning_rate": 0.05,
    "num_leaves": 3,
    "min_data_in_leaf": 50,
    "feature_fraction": 0.9,
    "lambdarank_truncation_level": 20,
    "seed": 1,
    "deterministic": True,
    "force_row_wise": True,
    "num_threads": 2,
    "verbosity": -1,
}
ROUNDS = [50, 100, 200, 400]


class Questions(OrderedDict):
    """Each question's fold, gold page count and candidate rows, with the feature names."""

    names = []


def read(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        if header[: len(KEYS)] != KEYS:
            sys.exit(f"train-ranker: {path} does not start with the columns {KEYS}")
        names = header[len(KEYS):]
        questions = Questions()
        for row in reader:
            q = questions.setdefault(
                row[0], {"fold": int(row[1]), "gold": int(row[5]), "rows": []}
            )
            page = (row[2], row[4]) if row[4] else (row[2], row[3])
            q["rows"].append((page, int(row[6]), [float(v) for v in row[len(KEYS):]]))
    return names, questions


def matrix(questions, ids):
    x, y, group = [], [], []
    for q in ids:
        rows = questions[q]["rows"]
        group.append(len(rows))
        for _, label, feats in rows:
            x.append(feats)
            y.append(label)
    return np.array(x, dtype=np.float64), np.array(y), group


def evidence(pages_scores, budget):
    """The pages of fused-cap's evidence at `budget`: notes by score, at most one a page before
    any second."""
    order = sorted(range(len(pages_scores)), key=lambda i: (-pages_scores[i][1], i))
    seen, firsts, seconds = set(), [], []
    for i in order:
        page = pages_scores[i][0]
        (seconds if page in seen else firsts).append(page)
        seen.add(page)
    return set((firsts + seconds)[:budget])


def page_ranking(pages_scores):
    best = {}
    for i, (page, score) in enumerate(pages_scores):
        if page not in best or score > best[page][0]:
            best[page] = (score, -i)
    return [p for p, _ in sorted(best.items(), key=lambda kv: (-kv[1][0], -kv[1][1]))]


def figures(questions, ids, score_of):
    """Mean recall@B and page R@k (%) over `ids`, each question's candidates scored by
    `score_of(question, i)`."""
    sums = defaultdict(float)
    for q in ids:
        rows = questions[q]["rows"]
        gold = {page for page, label, _ in rows if label}
        total = max(questions[q]["gold"], len(gold))
        scored = [(page, score_of(q, i)) for i, (page, _, _) in enumerate(rows)]
        for b in BUDGETS:
            sums[f"R@{b}"] += len(evidence(scored, b) & gold) / total
        ranked = page_ranking(scored)
        for k in PAGE_KS:
            sums[f"page R@{k}"] += len(set(ranked[:k]) & gold) / total
    return {k: 100 * v / max(len(ids), 1) for k, v in sums.items()}


def train(questions, ids, rounds):
    x, y, group = matrix(questions, ids)
    data = lgb.Dataset(x, y, group=group, feature_name=questions.names)
    return lgb.train(PARAMS, data, num_boost_round=rounds)


def predictions(model, questions, ids):
    x, _, _ = matrix(questions, ids)
    scores = model.predict(x)
    out, at = {}, 0
    for q in ids:
        n = len(questions[q]["rows"])
        out[q] = scores[at : at + n]
        at += n
    return out


def choose_rounds(questions, train_ids):
    """The number of rounds with the best mean recall@10 when each fold of `train_ids` is held
    out in turn (inside the training folds only)."""
    folds = sorted({questions[q]["fold"] for q in train_ids})
    if len(folds) < 2:
        return ROUNDS[1]
    best = None
    for rounds in ROUNDS:
        total = 0.0
        for held in folds:
            fit = [q for q in train_ids if questions[q]["fold"] != held]
            val = [q for q in train_ids if questions[q]["fold"] == held]
            pred = predictions(train(questions, fit, rounds), questions, val)
            total += figures(questions, val, lambda q, i: pred[q][i])["R@10"] * len(val)
        if best is None or total > best[0] + 1e-9:
            best = (total, rounds)
    return best[1]


def feature_column(names, name):
    return names.index(name)


def table(rows):
    keys = [f"R@{b}" for b in BUDGETS] + [f"page R@{k}" for k in PAGE_KS]
    print("| ranking | folds | n | " + " | ".join(keys) + " |")
    print("|---|---|---|" + "---|" * len(keys))
    for label, folds, n, f in rows:
        print(f"| {label} | {folds} | {n} | " + " | ".join(f"{f[k]:.1f}" for k in keys) + " |")


def git_commit():
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write_model(model, rounds, path, manifest):
    model.save_model(str(path.with_suffix(".txt")), num_iteration=rounds)
    path.with_suffix(".json").write_text(json.dumps(manifest, indent=2) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("features")
    ap.add_argument("--out", type=Path, help="folder for the model trained on every fold")
    ap.add_argument("--folds-out", type=Path, help="folder for one model a fold")
    ap.add_argument("--name", default="all-MiniLM-L6-v2")
    ap.add_argument("--model-id", default="sentence-transformers/all-MiniLM-L6-v2@int8")
    ap.add_argument("--features-commit", default=git_commit())
    ap.add_argument("--trained-on", default="mmlb-dev")
    args = ap.parse_args()

    names, questions = read(args.features)
    questions.names = names
    ids = list(questions)
    folds = sorted({q["fold"] for q in questions.values()})
    fused = feature_column(names, "fused")
    fused_score = lambda q, i: questions[q]["rows"][i][2][fused]
    manifest = lambda: {
        "model": args.model_id,
        "features_commit": args.features_commit,
        "trained_on": args.trained_on,
    }
    rows = []
    oof = {}
    for k in folds:
        test = [q for q in ids if questions[q]["fold"] == k]
        fit = [q for q in ids if questions[q]["fold"] != k]
        rounds = choose_rounds(questions, fit)
        model = train(questions, fit, rounds)
        pred = predictions(model, questions, test)
        oof.update(pred)
        rows.append((f"fused (first stage)", f"fold {k}", len(test), figures(questions, test, fused_score)))
        rows.append(
            (f"learned, out of fold ({rounds} rounds)", f"fold {k}", len(test),
             figures(questions, test, lambda q, i: pred[q][i]))
        )
        inside = predictions(model, questions, fit)
        rows.append(
            ("learned, in fold (its training folds)", f"not {k}", len(fit),
             figures(questions, fit, lambda q, i: inside[q][i]))
        )
        if args.folds_out:
            args.folds_out.mkdir(parents=True, exist_ok=True)
            m = manifest()
            m["trained_on"] = f"{args.trained_on}, every fold but {k} of {len(folds)}"
            write_model(model, rounds, args.folds_out / f"fold-{k}", m)
    rows.append(("fused (first stage)", "all", len(ids), figures(questions, ids, fused_score)))
    rows.append(("learned, out of fold", "all", len(ids), figures(questions, ids, lambda q, i: oof[q][i])))
    table(rows)

    if args.out:
        rounds = choose_rounds(questions, ids)
        model = train(questions, ids, rounds)
        args.out.mkdir(parents=True, exist_ok=True)
        m = manifest()
        m["trained_on"] = f"{args.trained_on}, every fold ({rounds} rounds)"
        write_model(model, rounds, args.out / args.name, m)
        # Golden rows: every 50th, with the model's predictions, for the Rust evaluator's test.
        x, _, _ = matrix(questions, ids)
        pick = list(range(0, len(x), 50))
        pred = model.predict(x[pick], num_iteration=rounds)
        with open(args.out / "golden.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["prediction"] + names)
            for p, i in zip(pred, pick):
                w.writerow([repr(float(p))] + [repr(float(v)) for v in x[i]])
        print(f"model: {args.out / args.name}.txt ({rounds} rounds), golden rows: {len(pick)}")


if __name__ == "__main__":
    main()
