"""Regenerate ranx_bordafuse_robust05.tsv.gz: ranx's Borda-fuse of the robust05 reference runs.

Not imported by the tests. Run it with an interpreter that has ranx (a scratch venv; ranx needs
numba, which the workbench does not depend on):

    python -m venv /tmp/ranxvenv && /tmp/ranxvenv/bin/pip install ranx==0.3.21
    /tmp/ranxvenv/bin/python tests/pooling/data/ranx_borda/make_fixture.py ../shared/refdata

Input: the 8 official TREC 2005 Robust runs of refdata/data/robust05/runs (every one has all 50
topics; the Terrier run lacks one and is left out), each cut to its top DEPTH documents in
trec_eval's order (score descending, then docno descending). ranx ranks a run's documents by
score, so each run is handed to it with the score DEPTH - rank + 1 (no ties): its order is
exactly the workbench's. Output: per topic, ranx's fused ranking cut to its first KEEP entries,
"topic<TAB>docno<TAB>score" with the score printed exactly (repr).
"""

import gzip
import sys
from pathlib import Path

from ranx import Run
from ranx.fusion import bordafuse

DEPTH = 100
KEEP = 60


def read(path: Path) -> dict[str, dict[str, float]]:
    lists: dict[str, list[tuple[float, str]]] = {}
    for line in path.read_text().splitlines():
        qid, _q0, docno, _rank, score, _tag = line.split()
        lists.setdefault(qid, []).append((float(score), docno))
    out = {}
    for qid, docs in lists.items():
        docs.sort(key=lambda x: (x[0], x[1]), reverse=True)  # score desc, then docno desc
        out[qid] = {docno: float(DEPTH - i) for i, (_s, docno) in enumerate(docs[:DEPTH])}
    return out


def main() -> None:
    refdata = Path(sys.argv[1])
    paths = sorted(p for p in (refdata / "data/robust05/runs").glob("*.run") if "terrier" not in p.name)
    runs = [Run(read(p), name=p.stem) for p in paths]
    fused = bordafuse(runs).to_dict()
    out = Path(__file__).with_name("ranx_bordafuse_robust05.tsv.gz")
    with gzip.open(out, "wt") as f:
        f.write("# ranx 0.3.21 bordafuse; runs: " + " ".join(p.stem for p in paths) + f"; depth {DEPTH}\n")
        for qid in sorted(fused):
            ranked = sorted(fused[qid].items(), key=lambda kv: (-kv[1], kv[0]))[:KEEP]
            for docno, score in ranked:
                f.write(f"{qid}\t{docno}\t{score!r}\n")


if __name__ == "__main__":
    main()
