"""nmt: neural machine translation on LibTorch, from Python (the C++ library's own code)"""

import os
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union, overload

import numpy
import numpy.typing

class Hypothesis:
    """One hypothesis of a translation."""

    @property
    def text(self) -> str:
        """the hypothesis' text"""
    @property
    def pieces(self) -> List[str]:
        """target pieces, '</s>' last when it was produced"""
    @property
    def score(self) -> float:
        """log-probability, </s> included when it was produced"""
    @property
    def finished(self) -> bool:
        """ended with </s> (False: cut at the length limit)"""
    @property
    def normalized_score(self) -> float:
        """what the n-best list is ordered by: beam search's score / ((5 + length) / 6) ** length_penalty; the score itself where nothing ranked (greedy search, forced decoding)"""
    @property
    def prefix_pieces(self) -> int:
        """how many of the first pieces were the given prefix (0: none given)"""
    def to_dict(self) -> Dict[str, Any]:
        """text, pieces, score, normalized_score, finished and prefix_pieces as a dict (for JSON)"""
    def __eq__(self, other: object) -> bool: ...
    def __getstate__(self) -> tuple: ...
    def __setstate__(self, arg0: tuple) -> None: ...
    def __repr__(self) -> str: ...

class Translation:
    """One sentence's translation: its best hypothesis, the n-best list and the attention."""

    @property
    def text(self) -> str:
        """the best hypothesis' text"""
    @property
    def score(self) -> float:
        """the best hypothesis' log-probability"""
    @property
    def finished(self) -> bool:
        """whether the best hypothesis ended with </s>"""
    @property
    def target_pieces(self) -> List[str]:
        """the best hypothesis' pieces"""
    @property
    def source_pieces(self) -> List[str]:
        """the source's pieces as read, then '</s>'"""
    @property
    def truncated(self) -> bool:
        """the source had more pieces than the model's maximum"""
    @property
    def nbest(self) -> List[Hypothesis]:
        """the hypotheses, best first (none for an empty input)"""
    @property
    def attention(self) -> Optional[numpy.typing.NDArray[numpy.float32]]:
        """the best hypothesis' attention, float32 [target pieces, source pieces]; None unless asked for"""
    @property
    def missing_terms(self) -> List[str]:
        """glossary target terms the best hypothesis lacks: the length limit came first"""
    @property
    def alignment(self) -> List[Tuple[int, int]]:
        """the best hypothesis' word alignment, (source word, target word) pairs from 0; empty unless asked for"""
    def _repr_svg_(self) -> Optional[str]:
        """the attention heatmap as nmt-attention draws it (Jupyter shows it)"""
    def to_dict(self) -> Dict[str, Any]:
        """text, score, finished, source_pieces, target_pieces, truncated, nbest (their dicts), attention
        (a list of rows, or None), alignment and missing_terms as a dict (for JSON)"""
    def __eq__(self, other: object) -> bool: ...
    def __getstate__(self) -> tuple: ...
    def __setstate__(self, arg0: tuple) -> None: ...
    def __repr__(self) -> str: ...

class Alternative:
    """One choice at a position of a translation (Translator.alternatives)."""

    @property
    def piece(self) -> str:
        """the piece ('</s>': the translation ends there)"""
    @property
    def id(self) -> int:
        """the piece's id"""
    @property
    def log_probability(self) -> float:
        """the piece's log-probability after the prefix"""
    @property
    def translation(self) -> Hypothesis:
        """the prefix, the piece and what the search finds after them"""
    def to_dict(self) -> Dict[str, Any]:
        """piece, id, log_probability and translation (its dict) as a dict (for JSON)"""
    def __repr__(self) -> str: ...

__version__: str

class TruncationWarning(UserWarning):
    """A call cut sentences to the model's maximum length (Translation.truncated)."""

class Translator:
    """A model directory written by nmt-train, loaded once, translating text."""

    def __init__(
        self,
        model_dir: Union[str, os.PathLike[str]],
        device: str = "cpu",
        threads: Optional[int] = None,
        shortlist: Union[str, bool] = "auto",
        int8: Union[str, bool] = "auto",
        weights: str = "best.pt",
        precision: str = "fp32",
    ) -> None:
        """Loads a model directory."""
    @overload
    def translate(
        self,
        texts: Iterable[str],
        beam: int = 1,
        nbest: int = 1,
        length_penalty: float = 1.0,
        attention: bool = False,
        batch_size: int = 64,
        max_ratio: float = 2.0,
        progress: Optional[Callable[[int], Any]] = None,
        prefix: Optional[Iterable[Optional[str]]] = None,
        sampling_topk: int = 1,
        sampling_topp: float = 1.0,
        sampling_temperature: float = 1.0,
        seed: int = 0,
        no_repeat_ngram: int = 0,
        alignment: bool = False,
        alignment_threshold: float = 0.0,
        replace_unknowns: bool = False,
        glossary: Optional[Union[Dict[str, str], Iterable[Tuple[str, str]], str, os.PathLike[str]]] = None,
        split_sentences: bool = True,
        protect_spans: bool = True,
        restore_case: bool = True,
        cut_loops: bool = True,
    ) -> List[Translation]:
        """Translates sentences; a Translation for each, in order."""
    @overload
    def translate(
        self,
        text: str,
        beam: int = 1,
        nbest: int = 1,
        length_penalty: float = 1.0,
        attention: bool = False,
        batch_size: int = 64,
        max_ratio: float = 2.0,
        progress: Optional[Callable[[int], Any]] = None,
        prefix: Optional[str] = None,
        sampling_topk: int = 1,
        sampling_topp: float = 1.0,
        sampling_temperature: float = 1.0,
        seed: int = 0,
        no_repeat_ngram: int = 0,
        alignment: bool = False,
        alignment_threshold: float = 0.0,
        replace_unknowns: bool = False,
        glossary: Optional[Union[Dict[str, str], Iterable[Tuple[str, str]], str, os.PathLike[str]]] = None,
        split_sentences: bool = True,
        protect_spans: bool = True,
        restore_case: bool = True,
        cut_loops: bool = True,
    ) -> Translation:
        """Translates one sentence."""
    def translate_file(
        self,
        input: Union[str, os.PathLike[str]],
        output: Union[str, os.PathLike[str]],
        beam: int = 1,
        length_penalty: float = 1.0,
        batch_size: int = 64,
        max_ratio: float = 2.0,
        progress: Optional[Callable[[int], Any]] = None,
        sampling_topk: int = 1,
        sampling_topp: float = 1.0,
        sampling_temperature: float = 1.0,
        seed: int = 0,
        no_repeat_ngram: int = 0,
        replace_unknowns: bool = False,
        glossary: Optional[Union[Dict[str, str], Iterable[Tuple[str, str]], str, os.PathLike[str]]] = None,
        split_sentences: bool = True,
        protect_spans: bool = True,
        restore_case: bool = True,
        cut_loops: bool = True,
    ) -> int:
        """Translates a file line by line into `output`; returns the number of lines."""
    def alternatives(
        self,
        text: str,
        prefix: str = "",
        count: int = 5,
        beam: int = 1,
        length_penalty: float = 1.0,
        max_ratio: float = 2.0,
    ) -> List[Alternative]:
        """The `count` most likely pieces right after `prefix`, most likely first, each with the translation that follows it."""
    def score(
        self,
        sources: Iterable[str],
        targets: Iterable[str],
        batch_size: int = 64,
        progress: Optional[Callable[[int], Any]] = None,
    ) -> List[Translation]:
        """Forced decoding: each source with its given target."""
    def translate_iterable(
        self,
        texts: Iterable[str],
        *,
        window: int = 1024,
        progress: Optional[Callable[[int], Any]] = None,
        **options: Any,
    ) -> Iterator[Translation]:
        """Translates an iterable of sentences lazily (a file object, a generator), `window` at a time, in input order."""
    @property
    def model_dir(self) -> str:
        """the model directory"""
    @property
    def device(self) -> str:
        """the device the model runs on"""
    @property
    def shortlist(self) -> bool:
        """whether translation scores only each batch's shortlist"""
    @property
    def int8(self) -> bool:
        """whether the linear layers run with int8 weights"""
    @property
    def runtime(self) -> str:
        """the device, precision and threads as they are now (threads are process-wide)"""
    def __repr__(self) -> str:
        """Translator('runs/de-en', transformer/transformer, int8, shortlist, cpu)"""

class BleuScore:
    """Corpus BLEU as sacreBLEU 2.x computes it by default (13a, exp smoothing)."""

    @property
    def score(self) -> float:
        """BLEU, 0..100"""
    @property
    def precisions(self) -> List[float]:
        """n-gram precisions 1-4, 0..100"""
    @property
    def bp(self) -> float:
        """brevity penalty"""
    @property
    def ratio(self) -> float:
        """hypothesis length / reference length"""
    @property
    def hyp_len(self) -> int:
        """hypothesis length"""
    @property
    def ref_len(self) -> int:
        """reference length"""
    @property
    def lowercase(self) -> bool:
        """scored lowercased"""
    @property
    def tokenize(self) -> str:
        """sacreBLEU's tokenizer: 13a"""
    @property
    def smooth(self) -> str:
        """sacreBLEU's smoothing: exp"""
    def to_dict(self) -> Dict[str, Any]:
        """nmt-score --json's fields, unrounded"""
    def __eq__(self, other: object) -> bool: ...
    def __getstate__(self) -> tuple: ...
    def __setstate__(self, arg0: tuple) -> None: ...
    def __str__(self) -> str: ...
    def __repr__(self) -> str: ...

def bleu(
    hypotheses: Iterable[str],
    references: Union[Sequence[str], Sequence[Sequence[str]]],
    lowercase: bool = False,
) -> BleuScore:
    """Corpus BLEU, nmt-score's (and sacreBLEU's) number."""

class ChrfScore:
    """Corpus chrF as sacreBLEU 2.x computes it by default."""

    @property
    def score(self) -> float:
        """chrF, 0..100"""
    @property
    def beta(self) -> int:
        """chrF's beta"""
    @property
    def char_order(self) -> int:
        """character n-grams up to this order"""
    @property
    def lowercase(self) -> bool:
        """scored lowercased"""
    def to_dict(self) -> Dict[str, Any]:
        """nmt-score --json's fields, unrounded"""
    def __eq__(self, other: object) -> bool: ...
    def __getstate__(self) -> tuple: ...
    def __setstate__(self, arg0: tuple) -> None: ...
    def __str__(self) -> str: ...
    def __repr__(self) -> str: ...

def chrf(
    hypotheses: Iterable[str],
    references: Union[Sequence[str], Sequence[Sequence[str]]],
    lowercase: bool = False,
) -> ChrfScore:
    """Corpus chrF2, nmt-score's (and sacreBLEU's) number; references as for bleu()."""

class Bpe:
    """A SentencePiece BPE model (PREFIX.model): text <-> pieces."""

    def __init__(self, path: str) -> None:
        """Loads PREFIX.model (as written by nmt-bpe or nmt-train)."""
    @staticmethod
    def train(
        inputs: List[str],
        prefix: str,
        vocab_size: int = 8000,
        character_coverage: float = 1.0,
        sentences: int = 0,
        seed: int = 1,
        threads: int = 2,
    ) -> Bpe:
        """Trains a BPE model on text files into PREFIX.model and PREFIX.vocab, as nmt-bpe does."""
    def encode(self, text: str) -> List[str]:
        """the text's pieces"""
    def encode_ids(self, text: str) -> List[int]:
        """the text's piece ids"""
    def decode(self, pieces: List[str]) -> str:
        """the text of pieces"""
    def decode_ids(self, ids: List[int]) -> str:
        """the text of piece ids"""
    @property
    def vocab_size(self) -> int:
        """the number of pieces"""
    @property
    def path(self) -> str:
        """the model file"""
    def __len__(self) -> int: ...
    def __repr__(self) -> str:
        """Bpe('de.model', vocab_size=8000)"""

def distill(
    teacher: Union[str, os.PathLike[str]],
    model_dir: Union[str, os.PathLike[str]],
    source: Optional[Union[str, os.PathLike[str]]] = None,
    teacher_beam: int = 5,
    min_score: float = 0.0,
    max_length_ratio: float = 0.0,
    config: Optional[Union[str, os.PathLike[str]]] = None,
    quiet: bool = False,
    **options: Any,
) -> Dict[str, Any]:
    """Distils a teacher into a student as nmt-distill does, in this process: the teacher's translations of its
    training sources into model_dir/distilled, then the student's training on them (**options: nmt-train's).

    Returns what train() returns. Ctrl-C raises KeyboardInterrupt; the same call continues."""

def train(
    config: Optional[Union[str, os.PathLike[str]]] = None,
    model_dir: Optional[Union[str, os.PathLike[str]]] = None,
    resume: bool = False,
    on_validation: Optional[Callable[[Dict[str, Any]], Any]] = None,
    quiet: bool = False,
    **options: Any,
) -> Dict[str, Any]:
    """Trains a model as nmt-train does, in this process: the same options (max_steps=300, each of its Python type), files and numbers.

    Returns steps, best_bleu, best_step, stopped_by, message and the paths (model_dir, best, last, metrics,
    config). Ctrl-C saves a checkpoint and raises KeyboardInterrupt."""
