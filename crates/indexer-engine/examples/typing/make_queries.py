#!/usr/bin/env python3
"""Make the typing query set: queries.jsonl from full.jsonl.

For each full query (f01..f40) it writes the query itself (set "full"), one
"prefix" variant (p01..p40: the query as typed partway) and one "typo"
variant (t01..t40: the query with one or two typing slips).

Deterministic: stdlib only, every random choice comes from random.Random
seeded with SEED and the query id. Run from anywhere:

    python3 make_queries.py
"""

import json
import os
import random

SEED = 20240611

HERE = os.path.dirname(os.path.abspath(__file__))
FULL = os.path.join(HERE, "full.jsonl")
OUT = os.path.join(HERE, "queries.jsonl")

# Neighbouring keys on a QWERTY keyboard (same row and the rows above/below).
QWERTY_NEIGHBOURS = {
    "q": "wa", "w": "qeas", "e": "wrsd", "r": "etdf", "t": "ryfg",
    "y": "tugh", "u": "yihj", "i": "uojk", "o": "ipkl", "p": "ol",
    "a": "qwsz", "s": "weadzx", "d": "ersfxc", "f": "rtdgcv", "g": "tyfhvb",
    "h": "yugjbn", "j": "uihknm", "k": "iojlm", "l": "opk",
    "z": "asx", "x": "sdzc", "c": "dfxv", "v": "fgcb", "b": "ghvn",
    "n": "hjbm", "m": "jkn",
}

EDITS = ("substitution", "deletion", "doubling", "transposition")


def letters(word):
    return sum(1 for ch in word if ch.isalpha())


def rng_for(qid, kind):
    return random.Random("%d-%s-%s" % (SEED, qid, kind))


# ---------------------------------------------------------------- prefix

def make_prefix(query, rng):
    """Keep the words before the cut word intact and cut that word to 3..6
    characters (strictly shorter than the word). The cut word is the last
    word, or, when the last word has 3 letters or fewer, the nearest earlier
    word that is longer; the words after it are dropped."""
    words = query.split()
    idx = len(words) - 1
    while idx > 0 and len(words[idx]) <= 3:
        idx -= 1
    word = words[idx]
    if len(word) <= 3:  # no word longer than 3: keep the query's first word whole
        return words[0]
    lengths = [n for n in range(3, min(6, len(word) - 1) + 1) if word[n - 1].isalnum()]
    cut = rng.choice(lengths)
    return " ".join(words[:idx] + [word[:cut]])


# ------------------------------------------------------------------ typo

def edit_word(word, rng):
    """One random edit among: substitution by a neighbouring QWERTY key,
    deletion, doubling of a letter, transposition of two adjacent letters.
    Never touches the first letter; a deletion never takes the last letter;
    only letters are edited. Returns the new word (always different)."""
    while True:
        kind = rng.choice(EDITS)
        pos = [i for i in range(1, len(word)) if word[i].isalpha()]
        if kind == "substitution":
            pos = [i for i in pos if word[i].lower() in QWERTY_NEIGHBOURS]
            if not pos:
                continue
            i = rng.choice(pos)
            new = rng.choice(QWERTY_NEIGHBOURS[word[i].lower()])
            if word[i].isupper():
                new = new.upper()
            return word[:i] + new + word[i + 1:]
        if kind == "deletion":
            # not the last letter either: that would only make a prefix
            # ("marks" -> "mark"), which the prefix set already measures
            pos = [i for i in pos if i < len(word) - 1]
            if not pos:
                continue
            i = rng.choice(pos)
            return word[:i] + word[i + 1:]
        if kind == "doubling":
            i = rng.choice(pos)
            return word[:i] + word[i] + word[i:]
        # transposition of two adjacent letters, both after the first letter
        pos = [i for i in pos
               if i + 1 < len(word) and word[i + 1].isalpha() and word[i] != word[i + 1]]
        if not pos:
            continue
        i = rng.choice(pos)
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]


def make_typo(query, rng):
    """Words of 5+ letters are candidates; each is picked independently by a
    seeded coin. One edit in total when every word is under 9 letters; one or
    two edits (seeded) when a word has 9+ letters, a second edit on the same
    word only if that word has 9+ letters. Without any 5+ letter word, the
    longest word gets one edit."""
    words = query.split()
    cands = [i for i, w in enumerate(words) if letters(w) >= 5]
    if not cands:
        longest = max(range(len(words)), key=lambda i: letters(words[i]))
        targets = [longest]
    else:
        long_words = [i for i in cands if letters(words[i]) >= 9]
        n_edits = rng.choice((1, 2)) if long_words else 1
        picked = [i for i in cands if rng.random() < 0.5]
        if not picked:
            picked = [rng.choice(cands)]
        rng.shuffle(picked)
        targets = sorted(picked[:n_edits])
        if len(targets) < n_edits:
            targets.append(rng.choice(long_words))
    out = list(words)
    for i in targets:
        out[i] = edit_word(out[i], rng)
    typo = " ".join(out)
    assert typo != query
    return typo


def main():
    with open(FULL, encoding="utf-8") as f:
        full = [json.loads(line) for line in f if line.strip()]
    rows = {"full": [], "prefix": [], "typo": []}
    for q in full:
        num = q["id"][1:]
        base = {"corpus": q["corpus"], "full": q["query"], "doc": q["doc"], "page": q["page"]}
        rows["full"].append(dict(id="f" + num, set="full", query=q["query"], **base))
        rows["prefix"].append(dict(id="p" + num, set="prefix",
                                   query=make_prefix(q["query"], rng_for(q["id"], "prefix")),
                                   **base))
        rows["typo"].append(dict(id="t" + num, set="typo",
                                 query=make_typo(q["query"], rng_for(q["id"], "typo")),
                                 **base))
    key_order = ("id", "set", "corpus", "query", "full", "doc", "page")
    with open(OUT, "w", encoding="utf-8") as f:
        for name in ("full", "prefix", "typo"):
            for r in rows[name]:
                f.write(json.dumps({k: r[k] for k in key_order}, ensure_ascii=False) + "\n")
    print("wrote %s: %d lines" % (os.path.basename(OUT), sum(len(v) for v in rows.values())))


if __name__ == "__main__":
    main()
