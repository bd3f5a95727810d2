"""Checks that lib/ is layered as docs/architecture.md draws it: a folder includes only the folders
before it in LAYERS (and itself), and nothing under lib/ or python/ (the other front end, beside the
programs) includes the programs' code (apps/).

Usage: include_layers.py LIB_DIR
"""
import pathlib
import re
import sys

# Each folder may include those before it. text (sentences, protected spans, case: plain C++ on text) comes
# right after util. kernels (the CPU's products and attention passes) come right
# after util: they know tensors and instruction sets, nothing of models. train comes after eval (validation BLEU); parallel after
# train: it implements train's TrainingPeers interface for several processes (the one inversion of
# "training is built on the rest", by design); serve after decode; distill after train (a teacher translates, a student trains).
LAYERS = ["util", "text", "kernels", "tokenization", "eval", "data", "model", "decode", "attention", "train", "distill", "parallel",
          "serve"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/[^"]+"', re.MULTILINE)
BARE_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)"', re.MULTILINE)


def violations(lib):
    found = []
    folders = sorted(p.name for p in lib.iterdir() if p.is_dir())
    for folder in folders:
        if folder not in LAYERS:
            found.append(f"lib/{folder}/ is not in LAYERS: place it in tests/build/include_layers.py and "
                         "docs/architecture.md")
            continue
        allowed = set(LAYERS[:LAYERS.index(folder) + 1])
        for source in sorted((lib / folder).rglob("*")):
            if source.suffix not in (".h", ".cpp"):
                continue
            for included in INCLUDE.findall(source.read_text(encoding="utf-8", errors="replace")):
                if included in LAYERS and included not in allowed:
                    found.append(f"{source.relative_to(lib.parent)} includes {included}/, a layer after {folder}/")
                elif included not in LAYERS and (lib.parent / "apps" / included).is_dir():
                    found.append(f"{source.relative_to(lib.parent)} includes the programs' {included}/")
    for source in sorted((lib.parent / "python").rglob("*")):
        if source.suffix not in (".h", ".cpp"):
            continue
        for included in INCLUDE.findall(source.read_text(encoding="utf-8", errors="replace")):
            if included not in LAYERS and (lib.parent / "apps" / included).is_dir():
                found.append(f"{source.relative_to(lib.parent)} includes the programs' {included}/")
        for name in BARE_INCLUDE.findall(source.read_text(encoding="utf-8", errors="replace")):
            if not (source.parent / name).exists() and any((lib.parent / "apps").glob(f"*/{name}")):
                found.append(f"{source.relative_to(lib.parent)} includes the programs' {name}")
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    found = violations(pathlib.Path(sys.argv[1]).resolve())
    for line in found:
        print(f"FAIL: {line}", file=sys.stderr)
    if found:
        sys.exit(1)
    print(f"lib/ layered as {' < '.join(LAYERS)}")


if __name__ == "__main__":
    main()
