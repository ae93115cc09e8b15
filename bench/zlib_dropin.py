#!/usr/bin/env python3
"""The zlib drop-in's benchmark (issue #7): unmodified programs with and without
LD_PRELOAD=target/release/libz.so, in the same run.

* Python `gzip.compress(data, 6)` and `gzip.decompress` on a ~200 MB real file: a tar of this
  machine's /usr/share/doc, /usr/lib/python3* and /usr/bin (text, binaries, compressed docs),
  cut at 200 MB and cached in target/bench-data/.
* Java GZIPOutputStream / GZIPInputStream on the same file (bench/java/GzBench.java).
* 1 KiB calls: Python `zlib.compress(chunk, 6)` and `zlib.decompress` on 1 KiB pieces.
* Memory of idle streams (a server holding many connections): resident KiB per stream after
  2000 Python `compressobj(6)` each compressed and sync-flushed a 720-byte message, and 2000
  `decompressobj()` each decoded one.

Each figure is the best of --reps runs; the table gives MB/s and hyperz/system speedups.
Usage: bench/zlib_dropin.py [--size MB] [--reps N]
"""
import argparse
import os
import subprocess
import sys
import tarfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.environ.get("HYPERZ_LIBZ", os.path.join(ROOT, "target", "release", "libz.so"))


def data_file(size_mb):
    d = os.path.join(ROOT, "target", "bench-data")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, f"dropin-{size_mb}M.tar")
    if os.path.exists(path) and os.path.getsize(path) == size_mb << 20:
        return path
    tmp = path + ".tmp"
    with tarfile.open(tmp, "w") as t:
        for top in ["/usr/share/doc", *sorted(p for p in os.listdir("/usr/lib") if p.startswith("python3")), "/usr/bin"]:
            top = top if top.startswith("/") else os.path.join("/usr/lib", top)
            if os.path.exists(top):
                t.add(top, recursive=True, filter=lambda i: i if i.isfile() or i.isdir() else None)
            if os.path.getsize(tmp) > size_mb << 20:
                break
    with open(tmp, "rb+") as f:
        f.truncate(size_mb << 20)
    os.replace(tmp, path)
    return path


PY_BIG = r"""
import gzip, sys, time
d = open(sys.argv[1], 'rb').read()
reps = int(sys.argv[2])
bc = bd = 1e9
for _ in range(reps):
    t = time.perf_counter(); c = gzip.compress(d, 6); bc = min(bc, time.perf_counter() - t)
    t = time.perf_counter(); b = gzip.decompress(c); bd = min(bd, time.perf_counter() - t)
    assert b == d
print(len(d) / bc / 1e6, len(d) / bd / 1e6, len(d) / len(c))
"""

PY_SMALL = r"""
import zlib, sys, time
d = open(sys.argv[1], 'rb').read(16 << 20)
chunks = [d[i:i + 1024] for i in range(0, len(d), 1024)]
reps = int(sys.argv[2])
comp = [zlib.compress(c, 6) for c in chunks]
bc = bd = 1e9
for _ in range(reps):
    t = time.perf_counter()
    for c in chunks: zlib.compress(c, 6)
    bc = min(bc, time.perf_counter() - t)
    t = time.perf_counter()
    for c in comp: zlib.decompress(c)
    bd = min(bd, time.perf_counter() - t)
print(len(d) / bc / 1e6, len(d) / bd / 1e6, len(d) / sum(map(len, comp)))
"""

PY_MEM = r"""
import sys, zlib
def rss():
    for l in open('/proc/self/status'):
        if l.startswith('VmRSS'): return int(l.split()[1])
d = open(sys.argv[1], 'rb').read(4 << 20)
n, size = 2000, 720
msgs = [d[i * 2000:i * 2000 + size] for i in range(n)]
if sys.argv[2] == 'd':
    zs = []
    for m in msgs:
        c = zlib.compressobj(6); zs.append(c.compress(m) + c.flush(zlib.Z_SYNC_FLUSH))
keep, base = [], rss()
for i, m in enumerate(msgs):
    if sys.argv[2] == 'c':
        o = zlib.compressobj(6); o.compress(m); o.flush(zlib.Z_SYNC_FLUSH)
    else:
        o = zlib.decompressobj(); assert o.decompress(zs[i]) == m
    keep.append(o)
print((rss() - base) / n)
"""


def run(cmd, preload):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if preload:
        env["LD_PRELOAD"] = LIB
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return [float(x) for x in out.split()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=200, help="data size in MB")
    ap.add_argument("--reps", type=int, default=2)
    a = ap.parse_args()
    if not os.path.exists(LIB):
        sys.exit("build first: cargo build --release")
    path = data_file(a.size)
    jdir = os.path.join(ROOT, "target", "bench-data", "java")
    os.makedirs(jdir, exist_ok=True)
    subprocess.run(["javac", "-d", jdir, os.path.join(ROOT, "bench", "java", "GzBench.java")], check=True)
    rows = []
    for name, cmd in [
        (f"Python gzip, {a.size} MB", [sys.executable, "-c", PY_BIG, path, str(a.reps)]),
        (f"Java GZIP streams, {a.size} MB", ["java", "-Xmx4g", "-cp", jdir, "GzBench", path, str(a.reps)]),
        ("Python zlib, 1 KiB calls", [sys.executable, "-c", PY_SMALL, path, str(a.reps + 1)]),
    ]:
        sys_c, sys_d, sys_r = run(cmd, False)
        hz_c, hz_d, hz_r = run(cmd, True)
        rows.append((name, sys_c, hz_c, sys_d, hz_d, sys_r, hz_r))
    print(f"machine: {os.cpu_count()} cores; data: {path}")
    print("| workload | compress MB/s system | hyperz | speedup | decompress MB/s system | hyperz | speedup | ratio system | hyperz |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n, sc, hc, sd, hd, sr, hr in rows:
        print(f"| {n} | {sc:.1f} | {hc:.1f} | {hc / sc:.2f}x | {sd:.1f} | {hd:.1f} | {hd / sd:.2f}x | {sr:.3f} | {hr:.3f} |")
    mem = {k: [sys.executable, "-c", PY_MEM, path, k] for k in "cd"}
    (sys_c,), (hz_c,) = run(mem["c"], False), run(mem["c"], True)
    (sys_d,), (hz_d,) = run(mem["d"], False), run(mem["d"], True)
    print()
    print("| idle Python streams (2000, 720-byte message) | resident KiB per stream, system | hyperz |")
    print("|---|---|---|")
    print(f"| compressobj(6) after a sync flush | {sys_c:.1f} | {hz_c:.1f} |")
    print(f"| decompressobj() after one message | {sys_d:.1f} | {hz_d:.1f} |")


if __name__ == "__main__":
    main()
