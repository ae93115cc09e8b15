#!/usr/bin/env python3
"""Counts what DEFLATE streams hold: blocks by type, literals, matches and their mean length.

    python3 bench/stream_stats.py FILE...

Each FILE is a zlib stream, a gzip member or raw DEFLATE (told apart by the first bytes).
A decoder's time goes per symbol more than per byte: a literal is a step for one byte, a
match a step for several. Two producers' streams of the same size can then decode at
different speeds with every decoder; this shows why. Pure Python (about 1 MB of output a
second): for analysis, not for timing. Checks that the symbols add up to the stream's
decompressed size (Python's zlib).
"""
import sys
import zlib

LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83,
            99, 115, 131, 163, 195, 227, 258]
LEN_EXTRA = [0] * 8 + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4 + [0]
DIST_EXTRA = [0, 0, 0, 0] + [k // 2 for k in range(2, 28)]
CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]


class Bits:
    """LSB-first bit reader over `data` from byte `start`."""

    def __init__(self, data, start):
        self.data, self.pos = data, start * 8

    def get(self, n):
        v = 0
        for i in range(n):
            b = self.pos
            v |= ((self.data[b >> 3] >> (b & 7)) & 1) << i
            self.pos += 1
        return v

    def align(self):
        self.pos = (self.pos + 7) & ~7


def decode_table(lengths):
    """The canonical code of `lengths` as a map from (length, code) to symbol."""
    count = [0] * 16
    for n in lengths:
        count[n] += 1
    count[0] = 0
    code, first = 0, [0] * 16
    for n in range(1, 16):
        code = (code + count[n - 1]) << 1
        first[n] = code
    table = {}
    for sym, n in enumerate(lengths):
        if n:
            table[(n, first[n])] = sym
            first[n] += 1
    return table


def symbol(bits, table):
    code = n = 0
    while n < 16:
        code = (code << 1) | bits.get(1)
        n += 1
        if (n, code) in table:
            return table[(n, code)]
    raise ValueError("invalid code at bit %d" % bits.pos)


def header_len(data):
    """Bytes before the DEFLATE data, and zlib's wbits for the check."""
    if len(data) >= 2 and (data[0] << 8 | data[1]) % 31 == 0 and data[0] & 15 == 8:
        return 2, 15
    if data[:3] == b"\x1f\x8b\x08":
        flags, at = data[3], 10
        if flags & 4:
            at += 2 + (data[at] | data[at + 1] << 8)
        for bit in (8, 16):
            if flags & bit:
                at = data.index(b"\0", at) + 1
        if flags & 2:
            at += 2
        return at, 31
    return 0, -15


def stats(data):
    start, wbits = header_len(data)
    bits = Bits(data, start)
    s = {"stored": 0, "fixed": 0, "dynamic": 0, "literals": 0, "matches": 0, "matched": 0}
    while True:
        last, kind = bits.get(1), bits.get(2)
        if kind == 0:
            s["stored"] += 1
            bits.align()
            n = bits.get(16)
            bits.get(16)
            bits.pos += 8 * n
            s["literals"] += n
        else:
            if kind == 1:
                s["fixed"] += 1
                lit = [8] * 144 + [9] * 112 + [7] * 24 + [8] * 8
                dist = [5] * 30
            elif kind == 2:
                s["dynamic"] += 1
                hlit, hdist, hclen = bits.get(5) + 257, bits.get(5) + 1, bits.get(4) + 4
                cl = [0] * 19
                for k in range(hclen):
                    cl[CL_ORDER[k]] = bits.get(3)
                cl_table, lengths = decode_table(cl), []
                while len(lengths) < hlit + hdist:
                    sym = symbol(bits, cl_table)
                    if sym < 16:
                        lengths.append(sym)
                    elif sym == 16:
                        lengths += [lengths[-1]] * (3 + bits.get(2))
                    elif sym == 17:
                        lengths += [0] * (3 + bits.get(3))
                    else:
                        lengths += [0] * (11 + bits.get(7))
                lit, dist = lengths[:hlit], lengths[hlit:]
            else:
                raise ValueError("block type 3 at bit %d" % bits.pos)
            lit_table, dist_table = decode_table(lit), decode_table(dist)
            while True:
                sym = symbol(bits, lit_table)
                if sym < 256:
                    s["literals"] += 1
                elif sym == 256:
                    break
                else:
                    length = LEN_BASE[sym - 257] + bits.get(LEN_EXTRA[sym - 257])
                    bits.get(DIST_EXTRA[symbol(bits, dist_table)])
                    s["matches"] += 1
                    s["matched"] += length
        if last:
            break
    out = len(zlib.decompressobj(wbits).decompress(data))
    if s["literals"] + s["matched"] != out:
        raise ValueError("symbols cover %d bytes, the stream %d"
                         % (s["literals"] + s["matched"], out))
    return s


def row(name, t):
    blocks = t["stored"] + t["fixed"] + t["dynamic"]
    mean = t["matched"] / t["matches"] if t["matches"] else 0
    print("%-28s %6d %9d %9d %7.2f %9d"
          % (name, blocks, t["literals"], t["matches"], mean, t["literals"] + t["matches"]))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    total = {}
    print("%-28s %6s %9s %9s %7s %9s" % ("file", "blocks", "literals", "matches", "mean", "symbols"))
    for path in sys.argv[1:]:
        s = stats(open(path, "rb").read())
        for k, v in s.items():
            total[k] = total.get(k, 0) + v
        row(path.rsplit("/", 1)[-1], s)
    if len(sys.argv) > 2:
        row("TOTAL", total)


if __name__ == "__main__":
    main()
