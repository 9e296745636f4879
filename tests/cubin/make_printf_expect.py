#!/usr/bin/env python3
"""Writes printf_k.expected: what printf.cu's printf_k prints in one CTA of 32 threads, computed
here from what the source means (C's printf conversions, as Python's % operator implements them;
`ll` is dropped for Python, whose integers are unbounded), in lane order. `%c` writes its
argument's low byte (C converts the int to unsigned char), so the text is written as bytes
(Latin-1: each character one byte): threads 30 and 31 print the bytes 0x7f and 0x80. Used by
tests/device.rs (device printf on both engines)."""
import os

FMT = ("t=%d i=%i u=%u x=%x X=%X o=%o c=%c s=%s f=%f e=%e g=%g w=%5.2f l=%-4d| ll=%lld "
       "llu=%llu %%\n").replace("%ll", "%")
big = 1 << 40
lines = []
for t in range(32):
    x = t * 0.5
    lines.append(FMT % (t, -t, 4000000000, 255 + t, 0xABC, 8, ord("a") + t, "warp", x,
                        x * 1000.0, x / 3.0, x, t, -big, big))
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "printf_k.expected")
with open(out, "wb") as f:
    f.write("".join(lines).encode("latin-1"))
