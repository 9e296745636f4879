#!/usr/bin/env python3
"""Writes the data of tests/traces/lea_pairs.toml: the input table and, computed here from the
kernel's formulas (not by warpjit), the two output arrays. Run from this folder."""
import struct

T = 0xFFFF_FF00          # the table's element 0 (c[0x0][0x140..0x148]): 4 GiB - 256
BEFORE = 64              # elements below it (negative indices)
N = 1024                 # elements from it


def table(k):
    return (0xA000_0000 + (k & 0xFFFF)) & 0xFFFF_FFFF


def thread(gid):
    acc, x = 0, 0
    for i in range(4):
        a = gid + 64 * i + 16
        acc += table(a)                        # A: LDG.E through the pair, s = 2
        addr = T + 4 * a
        x ^= addr & 0xFFFF_FFFF                # E: the pair's words read afterwards
        x ^= addr >> 32
        b = 2 * (gid + 64 * i)
        acc += table(b) + table(b + 1)         # B: LDG.E.64, index stepping by 2
        acc += table(2 * gid)                  # C: s = 3 with a 32-bit load
        d = a - 48                             # D: a signed 64-bit index {a >> 31, a}
        addr = (T + 4 * d) & (2**64 - 1)
        acc += table(d)                        # F: the load overwrites the low word
        acc += addr >> 32                      #    and the high word is read after
        acc += table(a)                        # misaligned base T + 1: aligned down
    return acc & 0xFFFF_FFFF, x


words = [table(k) for k in range(-BEFORE, N)]
open("lea_pairs_in.bin", "wb").write(struct.pack(f"<{len(words)}I", *words))
outs = [thread(g) for g in range(256)]
open("lea_pairs_acc.bin", "wb").write(struct.pack("<256I", *[o[0] for o in outs]))
open("lea_pairs_xor.bin", "wb").write(struct.pack("<256I", *[o[1] for o in outs]))
