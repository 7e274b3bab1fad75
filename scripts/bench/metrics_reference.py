#!/usr/bin/env python3
"""Plain-Python scoring of M1-M8 from cases.jsonl and trajectories.jsonl (standard library only).

A second, independent reading of the metric definitions (paper appendix "Metric Definitions",
FORMATS.md "Metrics report"), used two ways by scripts/bench/metrics-vs-python:
  * as the speed baseline the Rust `psebench metrics` command is compared with, and
  * as a cross-check: its numbers must equal those of `psebench --json metrics` exactly.

Usage: metrics_reference.py CASES.jsonl TRAJECTORIES.jsonl   (prints one JSON document)

It checks what a careful script would: malformed lines, missing fields, repeated case ids;
trajectories naming an unknown case are counted and skipped, and of two trajectories with the
same (model, case, repeat) the first is kept, as the Rust command does.
"""

import json
import sys

VERDICTS = ("Reportable", "Non-reportable", "Uncertain")


def fail(msg):
    sys.exit("error: " + msg)


def jsonl(path):
    """(line number, object) for every non-blank line."""
    with open(path, encoding="utf-8-sig") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as e:
                fail(f"{path}:{n}: not valid JSON ({e})")
            if not isinstance(obj, dict):
                fail(f"{path}:{n}: expected a JSON object")
            yield n, obj


def need(obj, key, path, n):
    if key not in obj:
        fail(f'{path}:{n}: required field "{key}" is missing')
    return obj[key]


def read_cases(path):
    cases, seen = [], {}
    for n, c in jsonl(path):
        cid = need(c, "case_id", path, n)
        if cid in seen:
            fail(f'{path}:{n}: case id "{cid}" was already used on line {seen[cid]}')
        seen[cid] = n
        verdict = need(c, "gold_verdict", path, n)
        if verdict not in VERDICTS:
            fail(f'{path}:{n}: unknown gold_verdict "{verdict}"')
        cases.append({
            "type": need(c, "case_type", path, n),
            "verdict": verdict,
            "clause": c.get("gold_clause"),
            "evidence": set(need(c, "gold_legal_basis", path, n)),
            "conditions": {b["name"] for b in need(c, "boundary_conditions", path, n)},
            "masked": set(c.get("masked_elements") or []),
            "clause_id": need(c, "clause_id", path, n),
        })
    return cases, {cid: i for i, cid in enumerate(seen)}


def repeat_of(t):
    r = t.get("repeat")
    return r if type(r) is int and 0 <= r < 2**64 else 0


def read_trajectories(path, index):
    """model -> {case index: [(repeat, trajectory), ...]} in input order, plus skip counts."""
    models, unknown = {}, {}
    for n, t in jsonl(path):
        model = need(t, "model", path, n)
        cid = need(t, "case_id", path, n)
        need(t, "turns", path, n)
        by_case = models.setdefault(model, {})
        i = index.get(cid)
        if i is None:
            unknown[model] = unknown.get(model, 0) + 1
            continue
        by_case.setdefault(i, []).append((repeat_of(t), t))
    return models, unknown


def outcome(case, t):
    """The per-case quantities of one trajectory (paper appendix, "Per-Case Notation")."""
    final = t.get("final") or {}
    verdict = final.get("final_verdict")
    verdict = verdict if verdict in VERDICTS else None
    asks = sum(1 for x in t["turns"] if x.get("role") == "eval" and x.get("action") == "ASK")
    recovered = set()
    for x in t["turns"]:
        if x.get("role") == "info" and x.get("status") == "answered":
            recovered.update(x.get("fields_used") or [])
    cited = set(final.get("clause_and_guidance_evidence") or [])
    rationale = final.get("rationale")
    judge = t.get("judge")
    hits = 0
    if judge is not None and rationale is not None and rationale.strip():
        hits = len(set(judge.get("hits") or []) & case["conditions"])
    return {
        "verdict": verdict,
        "clause_match": case["clause"] is not None and final.get("targeted_clause") == case["clause"],
        "evidence": overlap(case["evidence"], cited),
        "hits": hits,
        "asks": asks,
        "slots": overlap(case["masked"], recovered),
        "tokens": (t.get("usage") or {}).get("completion_tokens", 0),
    }


NO_TRAJECTORY = {"verdict": None, "clause_match": False, "evidence": (0, 0, 0), "hits": 0, "asks": 0,
                 "slots": (0, 0, 0), "tokens": 0}


def overlap(gold, predicted):
    tp = len(gold & predicted)
    return tp, len(predicted) - tp, len(gold) - tp


def pct(part, whole):
    return 100.0 * part / whole if whole else 0.0


def share(part, whole):
    return 100.0 * part / whole if whole else None


def prf(tp, fp, fn):
    p, r = pct(tp, tp + fp), pct(tp, tp + fn)
    f1 = 2.0 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f1, "tp": tp, "fp": fp, "fn": fn}


def add(acc, counts):
    return tuple(a + b for a, b in zip(acc, counts))


def decide(acc, actual, predicted):
    tp, fp, fn = acc
    return (tp + (actual and predicted), fp + (not actual and predicted), fn + (actual and not predicted))


def score(cases, by_case):
    n = correct = r_size = r_correct = e_size = h_hits = h_conditions = s_size = 0
    evidence = slots = m5 = m7 = m8 = (0, 0, 0)
    answered = 0
    for i, case in enumerate(cases):
        runs = by_case.get(i)
        if runs:
            first = min(runs, key=lambda rt: rt[0])  # min keeps the first of equal repeats
            o = outcome(case, first[1])
            answered += 1
        else:
            o = NO_TRAJECTORY
        ok = o["verdict"] == case["verdict"]
        n += 1
        correct += ok
        if case["verdict"] == "Reportable" and o["verdict"] == "Reportable":
            r_size += 1
            r_correct += o["clause_match"]
        if ok and case["evidence"]:
            e_size += 1
            evidence = add(evidence, o["evidence"])
        if ok and case["conditions"]:
            h_hits += o["hits"]
            h_conditions += len(case["conditions"])
        missing = case["type"] == "missing"
        m5 = decide(m5, missing, o["asks"] > 0)
        if missing and o["asks"] > 0 and case["masked"]:
            s_size += 1
            slots = add(slots, o["slots"])
        m7 = decide(m7, case["type"] == "uncertain", o["verdict"] == "Uncertain")
        m8 = decide(m8, case["verdict"] == "Reportable", o["verdict"] == "Reportable")
    return {
        "cases": n,
        "trajectories": answered,
        "M1": share(correct, n),
        "M2": share(r_correct, r_size),
        "M3": prf(*evidence) if e_size else None,
        "M4": share(h_hits, h_conditions),
        "M5": prf(*m5) if n else None,
        "M6": prf(*slots) if s_size else None,
        "M7": prf(*m7) if n else None,
        "M8": prf(*m8) if n else None,
    }


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cases, index = read_cases(sys.argv[1])
    models, unknown = read_trajectories(sys.argv[2], index)
    report = []
    for name in sorted(models):
        entry = {"model": name}
        entry.update(score(cases, models[name]))
        entry["unknown_case"] = unknown.get(name, 0)
        report.append(entry)
    json.dump({"models": report}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
