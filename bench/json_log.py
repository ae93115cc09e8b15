#!/usr/bin/env python3
"""Writes a JSON log of LINES lines (default 40,000, about 4.3 MB) to standard output: one
object per line with a timestamp, level, service, latency, user and path, from a seeded
generator, so every run writes the same bytes. Structured text of the kind storage and cloud
operators gzip by the terabyte: lines that repeat most of their fields."""
import random
import sys

lines = int(sys.argv[1]) if len(sys.argv) > 1 else 40_000
rnd = random.Random(1)
levels = ["debug", "info", "info", "warn", "error"]
services = ["api", "auth", "cache", "db", "queue"]
out = sys.stdout
for i in range(lines):
    path = rnd.choice(["/health", "/v1/users", "/v1/orders/%d" % rnd.randrange(1000),
                       "/v1/users/%d/cart" % rnd.randrange(100), "/metrics"])
    out.write('{"ts": %d, "level": "%s", "svc": "%s", "lat_ms": %.2f, "user": "u%05d", '
              '"path": "%s"}\n' % (1_600_000_000 + i, rnd.choice(levels), rnd.choice(services),
                                   rnd.uniform(0.1, 50.0), rnd.randrange(20_000), path))
