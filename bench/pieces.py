#!/usr/bin/env python3
"""Inputs of the sizes servers, HDF5 chunks and BGZF blocks compress, cut from whole files, and
the harness's figures summed per kind of piece.

  pieces.py cut OUTDIR SIZE[,SIZE...] FILE...
      Cuts each FILE into up to 8 pieces of each SIZE bytes, at evenly spaced offsets (the
      first at the start, the last at the end), written as OUTDIR/NAME-SIZE-K. The same files
      give the same pieces.
  pieces.py summary CSV
      Reads the harness's --csv output for such a directory and prints, per NAME-SIZE and
      level, each peer's ratio and compression MB/s over the pieces, and hyperz's time over
      each other peer's (below 1.00x: hyperz is faster).
"""
import collections
import csv
import os
import re
import sys

PIECES = 8


def cut(outdir, sizes, files):
    os.makedirs(outdir, exist_ok=True)
    for path in files:
        data = open(path, "rb").read()
        name = os.path.basename(path).split(".")[0]
        for size in sizes:
            count = min(PIECES, len(data) // size)
            for k in range(count):
                at = (len(data) - size) * k // max(count - 1, 1)
                with open(os.path.join(outdir, "%s-%05d-%d" % (name, size, k)), "wb") as f:
                    f.write(data[at:at + size])


def summary(path):
    # (group, peer, level) -> [input bytes, output bytes, compression seconds]
    total = collections.defaultdict(lambda: [0, 0, 0.0])
    for row in csv.DictReader(open(path)):
        if row["kind"] != "own" or row["scope"] == "TOTAL":
            continue
        group = re.sub(r"-\d+$", "", row["scope"])
        t = total[(group, row["peer"], int(row["level"]))]
        t[0] += int(row["in_bytes"])
        t[1] += int(row["out_bytes"])
        t[2] += float(row["comp_secs"])
    peers = sorted({k[1] for k in total} - {"hyperz"})
    print("%-20s %5s  %-16s" % ("pieces", "level", "hyperz") +
          "".join("  %-28s" % p for p in peers))
    for group, level in sorted({(k[0], k[2]) for k in total}):
        hz = total.get((group, "hyperz", level))
        if hz is None:
            continue
        line = "%-20s %5d  %6.3f %7.1f  " % (group, level, hz[0] / hz[1], hz[0] / hz[2] / 1e6)
        for p in peers:
            o = total.get((group, p, level))
            if o is None:
                line += "  %-28s" % "-"
            else:
                line += "  %6.3f %7.1f  time %5.2fx" % (o[0] / o[1], o[0] / o[2] / 1e6,
                                                       hz[2] / o[2])
        print(line.rstrip())


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "cut":
        cut(sys.argv[2], [int(s) for s in sys.argv[3].split(",")], sys.argv[4:])
    elif len(sys.argv) == 3 and sys.argv[1] == "summary":
        summary(sys.argv[2])
    else:
        sys.exit(__doc__)
