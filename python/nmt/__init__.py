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

from ._nmt import (Alternative, BleuScore, Bpe, ChrfScore, Hypothesis, Translation, Translator,
                   TruncationWarning, __version__, bleu, chrf, distill, train)

__all__ = ["Translator", "Translation", "Hypothesis", "Alternative", "train", "distill", "bleu", "chrf", "BleuScore", "ChrfScore", "Bpe",
           "TruncationWarning", "__version__"]


def _translate_iterable(self, texts, *, window=1024, progress=None, **options):
    """Translates an iterable of sentences lazily (a file object, a generator): reads `window` of them at
    a time, translates each window as translate() does (sorted batches), and yields the Translations in
    input order. A line's end ("\\n", "\\r\\n") is not part of its sentence. When the iterable raises, the
    sentences it gave are translated and yielded first. progress: called with the number of sentences done
    so far. Other keywords: translate()'s."""
    if isinstance(texts, str):
        raise TypeError("texts must be an iterable of str, not str")
    if isinstance(window, bool) or not isinstance(window, int):
        raise TypeError(f"window must be int, not {type(window).__name__}")
    if window < 1:
        raise ValueError(f"window must be at least 1, not {window}")
    done = 0

    def told(count):
        progress(done + count)

    def translated(chunk):
        return self.translate(chunk, progress=told if progress is not None else None, **options)

    chunk = []
    try:
        for text in texts:
            if isinstance(text, str) and text.endswith("\n"):
                text = text[:-2] if text.endswith("\r\n") else text[:-1]
            chunk.append(text)
            if len(chunk) == window:
                yield from translated(chunk)
                done += len(chunk)
                chunk = []
    except Exception:  # the source failed: what it gave is translated first, then its error comes out
        if chunk:
            yield from translated(chunk)
        raise
    if chunk:
        yield from translated(chunk)


Translator.translate_iterable = _translate_iterable

