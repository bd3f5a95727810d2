"""nmt: neural machine translation on LibTorch, from Python.

The C++ library's own translator, metrics and BPE (the programs' code, at their speed):

    import nmt
    translator = nmt.Translator("runs/multi30k")
    t = translator.translate("Ein Hund läuft im Park.", attention=True)
    print(t.text, t.score)
    t  # in Jupyter: the attention heatmap

Errors are the programs' one-line messages: ValueError for bad input or options,
FileNotFoundError / OSError for files, RuntimeError otherwise. See docs/python.md.
"""

from ._nmt import (BleuScore, Bpe, ChrfScore, Hypothesis, Translation, Translator,
                   TruncationWarning, __version__, bleu, chrf, train)

__all__ = ["Translator", "Translation", "Hypothesis", "train", "bleu", "chrf", "BleuScore", "ChrfScore", "Bpe",
           "TruncationWarning", "__version__"]
