#!/usr/bin/env python3
"""Splits an fxc /Fh header (NAME.inc) into the fixtures tests/dxbc/ keeps: NAME.asm, the listing
fxc printed between `#if 0` and `#endif` (a `// Source:` line is added by hand on top), and
NAME.cso, the container whose bytes the header holds as a `const BYTE NAME[] = { ... };` array.

Usage: extract_inc.py NAME.inc [...]   (writes NAME.asm and NAME.cso next to each input)
"""
import re
import sys

for path in sys.argv[1:]:
    text = open(path, encoding="latin-1").read()
    start = text.index("#if 0\n") + len("#if 0\n")
    end = text.index("#endif", start)
    open(path[:-4] + ".asm", "w").write(text[start:end])
    array = re.search(r"\{(.*?)\};", text[end:], re.S).group(1)
    data = bytes(int(n) for n in re.findall(r"\d+", array))
    open(path[:-4] + ".cso", "wb").write(data)
    print(f"{path}: {len(data)} container bytes")
