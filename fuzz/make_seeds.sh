#!/usr/bin/env bash
# Writes the seed corpora fuzz/seeds/<target>/ from the repository (run it before fuzzing; the
# seeds are not committed, they follow the traces):
#   trace         every tests/traces/**/*.toml and examples/*.toml
#   sass          the program of every launch of those traces (inline `code`), every *.sass file
#                 under tests/traces, and each of those programs cut into single lines
#   dxbc          every DXBC listing and container under tests/dxbc and examples, and the inline
#                 DXBC programs of the traces
#   cubin         every tests/cubin/*.cubin (ptxas output)
#   maxwell       the code of every kernel of those cubins, after a byte giving its register count
#   differential  pseudo-random inputs of 16 to 4096 bytes (fixed seed), every profile and JIT
#                 variant, so that the first inputs already make long programs
#   (sass, dxbc)  the hostile shapes of warpjit::testgen::hostile at 8 KiB (deep call chains,
#                 nests, fans, ...; written by `cargo run --example load_shapes` when cargo is
#                 there)
# Needs bash and python3 (3.11 or later, for tomllib). Existing seeds are replaced.
set -euo pipefail
cd "$(dirname "$0")"
rm -rf seeds
mkdir -p seeds/trace seeds/sass seeds/dxbc seeds/cubin seeds/maxwell seeds/differential
python3 - <<'EOF'
import pathlib, random, tomllib

root = pathlib.Path("..")
seeds = pathlib.Path("seeds")
traces = sorted(root.glob("tests/traces/**/*.toml")) + sorted(root.glob("examples/*.toml"))
programs = []
for t in traces:
    name = str(t.relative_to(root)).replace("/", "_")
    (seeds / "trace" / name).write_bytes(t.read_bytes())
    try:
        doc = tomllib.loads(t.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        continue  # a deliberately malformed trace: a trace seed only
    for i, launch in enumerate(doc.get("launch", [])):
        code = launch.get("code") if isinstance(launch, dict) else None
        if isinstance(code, str):
            programs.append((f"{name[:-5]}_launch{i}", code))
for pattern in ("tests/dxbc/*.asm", "tests/dxbc/*.cso", "examples/*.asm", "examples/*.cso"):
    for f in sorted(root.glob(pattern)):
        (seeds / "dxbc" / str(f.relative_to(root)).replace("/", "_")).write_bytes(f.read_bytes())
import importlib.util
spec = importlib.util.spec_from_file_location("words", root / "tests/cubin/words.py")
words = importlib.util.module_from_spec(spec)
spec.loader.exec_module(words)
for f in sorted(root.glob("tests/cubin/*.cubin")):
    data = f.read_bytes()
    (seeds / "cubin" / f.name).write_bytes(data)
    for name, _kind, off, size, info in words.sections(data):
        if name.startswith(".text."):
            code = data[off:off + size]
            (seeds / "maxwell" / f"{f.stem}_{name[6:]}").write_bytes(bytes([info >> 24]) + code)
for name, code in programs:
    if any(code.lstrip().startswith(v) for v in ("cs_", "ps_", "vs_")):
        (seeds / "dxbc" / f"{name}.asm").write_text(code)
for s in sorted(root.glob("tests/traces/**/*.sass")):
    programs.append((str(s.relative_to(root)).replace("/", "_")[:-5], s.read_text()))

lines = set()
for name, code in programs:
    (seeds / "sass" / f"{name}.sass").write_text(code)
    lines.update(l.strip() for l in code.splitlines() if l.strip())
for i, line in enumerate(sorted(lines)):
    (seeds / "sass" / f"line_{i:04}.sass").write_text(line + "\n")

rng = random.Random(6)
n = 0
for length in (16, 64, 256, 1024, 4096):
    for profile in range(6):
        for variant in range(3):
            body = bytes(rng.getrandbits(8) for _ in range(length))
            (seeds / "differential" / f"p{profile}_v{variant}_{length:04}").write_bytes(
                bytes([profile, variant]) + body)
            n += 1
print(f"seeds: {len(traces)} traces, {len(programs)} programs and {len(lines)} lines, "
      f"{n} differential inputs")
EOF

# The hostile shapes (tests/load_bounds.rs), small: seeds for the front-end targets.
if command -v cargo >/dev/null; then
  tmp=$(mktemp -d)
  (cd .. && cargo run --quiet --features testgen --example load_shapes -- "$tmp" 8192 >/dev/null)
  for f in "$tmp"/*.sass; do cp "$f" "seeds/sass/hostile_$(basename "$f")"; done
  for f in "$tmp"/*.asm; do cp "$f" "seeds/dxbc/hostile_$(basename "$f")"; done
  rm -rf "$tmp"
  echo "seeds: the hostile shapes"
fi
