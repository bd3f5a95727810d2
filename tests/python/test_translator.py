"""nmt.Translator: the same translations, scores and attention as the programs, errors as Python's."""

import csv
import json
import multiprocessing
import os
import pathlib
import pickle
import resource
import shutil
import signal
import threading
import time

import numpy
import pytest

import nmt
from conftest import run, run_process


def translate_program(bin_dir, model_dir, input_file, *options):
    """nmt-translate's finished process on the CPU (its stdout and stderr)."""
    return run_process(bin_dir / "nmt-translate", "--model", model_dir, "--input", input_file, "--device", "cpu",
                       *options)


@pytest.mark.parametrize("options", [
    {},
    {"shortlist": "off"},
    {"int8": "off"},
    {"int8": True},
    {"shortlist": "on", "int8": "on"},
])
def test_greedy_translations_are_nmt_translates(bin_dir, model_dir, corpus, sources, options):
    flags = ["--stats"]
    for name, value in options.items():
        flags += [f"--{name}", "on" if value is True else value]
    program = translate_program(bin_dir, model_dir, corpus / "valid.src", *flags)
    translator = nmt.Translator(str(model_dir), **options)
    assert [t.text for t in translator.translate(sources)] == program.stdout.splitlines()
    # the defaults (auto) settle as the program's do
    assert translator.shortlist == ("shortlist on," in program.stderr)
    assert translator.int8 == ("int8 on," in program.stderr)
    if "int8" in options:
        assert translator.int8 == (options["int8"] is True or options["int8"] == "on")


def test_beam_and_nbest_lines_are_nmt_translates(bin_dir, model_dir, corpus, sources):
    expected = translate_program(bin_dir, model_dir, corpus / "valid.src", "--beam", "4", "--nbest", "3",
                                 "--length-penalty", "0.6").stdout
    translations = nmt.Translator(str(model_dir)).translate(sources, beam=4, nbest=3, length_penalty=0.6)
    lines = "".join(f"{i} ||| {h.text} ||| {h.score:.4f}\n"
                    for i, t in enumerate(translations, 1) for h in t.nbest)
    assert lines == expected
    assert all(len(t.nbest) == 3 for t in translations)


def test_one_sentence_an_empty_one_and_a_file(model_dir, corpus, sources, tmp_path):
    translator = nmt.Translator(str(model_dir))
    many = translator.translate(sources)
    one = translator.translate(sources[3])
    # alone, the sentence's products have other shapes: the same text, the score to float32's rounding
    assert isinstance(one, nmt.Translation) and one.text == many[3].text
    assert one.score == pytest.approx(many[3].score, abs=1e-5)
    empty = translator.translate("")
    assert empty.text == "" and empty.nbest == [] and empty.attention is None
    out = tmp_path / "out.txt"
    assert translator.translate_file(str(corpus / "valid.src"), str(out)) == len(sources)
    assert out.read_text(encoding="utf-8").splitlines() == [t.text for t in many]


def test_attention_rows_sum_to_one_and_match_nmt_attention(bin_dir, model_dir, corpus, sources, tmp_path):
    run(bin_dir / "nmt-attention", "--model", model_dir, "--input", corpus / "valid.src", "--output-dir",
        tmp_path, "--device", "cpu")
    translations = nmt.Translator(str(model_dir)).translate(sources, attention=True)
    for i in (0, 7, 39):
        t = translations[i]
        with open(tmp_path / f"{i + 1:06d}.csv", encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
        assert rows[0][1:] == t.source_pieces
        assert [r[0] for r in rows[1:]] == t.target_pieces
        written = numpy.array([[float(x) for x in r[1:]] for r in rows[1:]], dtype=numpy.float32)
        assert t.attention.dtype == numpy.float32
        assert t.attention.shape == (len(t.target_pieces), len(t.source_pieces))
        numpy.testing.assert_allclose(t.attention.sum(axis=1), 1.0, atol=1e-5)
        numpy.testing.assert_allclose(t.attention, written, atol=5e-7)
        assert "<svg" in t._repr_svg_() and t.target_pieces[0] in t._repr_svg_()


def test_forced_decoding_scores_a_translation_as_its_search_did(model_dir, sources):
    # float32: int8's scores move in their fourth digit with a batch's padding (the shortlist test below)
    translator = nmt.Translator(str(model_dir), shortlist="off", int8="off")
    # the tiny task writes "the the the" for "der die das": its own, not a loop
    found = translator.translate(sources[:10], cut_loops=False)
    scored = translator.score(sources[:10], [t.text for t in found])
    for f, s in zip(found, scored):
        assert s.text == f.text
        assert s.score == pytest.approx(f.score, abs=1e-4)
        numpy.testing.assert_allclose(s.attention.sum(axis=1), 1.0, atol=1e-5)


def test_errors_are_pythons_with_the_programs_messages(model_dir, tmp_path):
    with pytest.raises(FileNotFoundError, match="model directory .*nowhere does not exist"):
        nmt.Translator(str(tmp_path / "nowhere"))
    with pytest.raises(ValueError, match="^shortlist must be on, off or auto, not 'maybe'$"):
        nmt.Translator(str(model_dir), shortlist="maybe")
    with pytest.raises(ValueError, match="^int8 must be on, off or auto, not 'maybe'$"):
        nmt.Translator(str(model_dir), int8="maybe")
    translator = nmt.Translator(str(model_dir))
    with pytest.raises(ValueError, match=r"^texts:2: control character U\+0007 at byte 2 \(only tab is allowed\)$"):
        translator.translate(["fine", "a\x07b"])
    with pytest.raises(ValueError, match="^nbest 3 needs beam 3 or more$"):
        translator.translate("der Hund", beam=2, nbest=3)
    with pytest.raises(ValueError, match="^batch_size must be between 1 and 1024, not 0$"):
        translator.translate("der Hund", batch_size=0)
    # every size and number is bounded: refused at once, nothing allocated
    with pytest.raises(ValueError, match="^beam must be between 1 and 100, not 1000000$"):
        translator.translate("Ein Hund rennt.", beam=10**6)
    for bad in (float("inf"), float("-inf"), float("nan"), -1.0):
        with pytest.raises(ValueError, match="^max_ratio must be a number from 0 to 1000, not "):
            translator.translate("der Hund", max_ratio=bad)
        with pytest.raises(ValueError, match="^length_penalty must be a number from 0 to 10, not "):
            translator.translate("der Hund", beam=2, length_penalty=bad)
    with pytest.raises(ValueError, match="^2 sources but 1 targets$"):
        translator.score(["a", "b"], ["c"])
    with pytest.raises(FileNotFoundError, match="cannot open .*missing.txt"):
        translator.translate_file(str(tmp_path / "missing.txt"), str(tmp_path / "out.txt"))
    (tmp_path / "in.txt").write_text("der Hund\n", encoding="utf-8")
    with pytest.raises(OSError, match="cannot write .*no-folder/out.txt: No such file or directory"):
        translator.translate_file(str(tmp_path / "in.txt"), str(tmp_path / "no-folder" / "out.txt"))
    with pytest.raises(TypeError, match="^texts must be an iterable of str, not int$"):
        translator.translate(42)


def test_argument_errors_name_the_argument_and_element_as_python_does(model_dir, tmp_path):
    translator = nmt.Translator(str(model_dir))
    with pytest.raises(TypeError, match=r"^texts\[1\] must be str, not int$"):
        translator.translate(["der Hund", 42])
    with pytest.raises(TypeError, match=r"^texts\[0\] must be str, not NoneType$"):
        translator.translate([None])
    with pytest.raises(TypeError, match=r"^targets\[0\] must be str, not bytes$"):
        translator.score(["der Hund"], [b"the dog"])
    with pytest.raises(ValueError, match="^batch_size must be between 1 and 1024, not -5$"):
        translator.translate(["der Hund"], batch_size=-5)
    with pytest.raises(ValueError, match="^batch_size must be between 1 and 1024, not -5$"):
        translator.score(["der Hund"], ["the dog"], batch_size=-5)
    with pytest.raises(ValueError, match="^beam must be between 1 and 100, not -2$"):
        translator.translate("der Hund", beam=-2)
    with pytest.raises(TypeError, match="^model_dir must be str or os.PathLike, not int$"):
        nmt.Translator(5)
    with pytest.raises(ValueError, match=r"^model directory .*config.ini is a file, not a directory \(give the folder "
                                         r"nmt-train wrote\)$"):
        nmt.Translator(model_dir / "config.ini")
    with pytest.raises(TypeError, match="^output must be str or os.PathLike, not NoneType$"):
        translator.translate_file(str(tmp_path / "in.txt"), None)


def test_paths_iterables_version_and_repr_as_python_users_expect(model_dir, sources, tmp_path):
    translator = nmt.Translator(model_dir)  # a pathlib.Path
    assert repr(translator) == f"Translator({str(model_dir)!r}, rnn/rnn, int8, shortlist, cpu)"
    listed = [t.text for t in translator.translate(sources[:5])]
    assert [t.text for t in translator.translate(s for s in sources[:5])] == listed  # a generator
    assert [t.text for t in translator.translate(tuple(sources[:5]))] == listed
    (tmp_path / "in.txt").write_text("\n".join(sources[:5]) + "\n", encoding="utf-8")
    assert translator.translate_file(tmp_path / "in.txt", tmp_path / "out.txt") == 5
    assert (tmp_path / "out.txt").read_text(encoding="utf-8").splitlines() == listed
    assert [t.score for t in translator.score(iter(sources[:2]), iter(listed[:2]))] == \
        [t.score for t in translator.score(sources[:2], listed[:2])]
    assert nmt.__version__ == run(pathlib.Path(os.environ.get("NMT_BIN", "build/bin")) / "nmt-translate",
                                  "--version").split()[2]


def test_eight_threads_at_once_get_one_threads_translations(model_dir, sources):
    translator = nmt.Translator(str(model_dir))
    expected = [t.text for t in translator.translate(sources)]
    results, failures = [None] * 8, []

    def work(k):
        try:
            results[k] = [t.text for t in translator.translate(sources, beam=1 + k % 2)]
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append(e)

    beam2 = [t.text for t in translator.translate(sources, beam=2)]
    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    for k, r in enumerate(results):
        assert r == (expected if k % 2 == 0 else beam2)


def test_a_thousand_calls_leave_memory_flat(model_dir, sources):
    translator = nmt.Translator(str(model_dir))
    for _ in range(100):  # allocator pools and caches settle
        translator.translate(sources[:2], attention=True)

    def resident_kib():
        with open("/proc/self/status", encoding="ascii") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))

    before = resident_kib()
    for _ in range(1000):
        translator.translate(sources[:2], attention=True)
    grown = resident_kib() - before
    assert grown < 4096, f"resident memory grew by {grown} KiB over 1,000 calls"
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0


def test_shortlist_auto_is_on_exactly_where_the_directory_has_one(model_dir, sources, tmp_path):
    bare = tmp_path / "bare"
    bare.mkdir()
    for f in model_dir.iterdir():
        if f.is_file() and f.name != "shortlist.bin":
            (bare / f.name).write_bytes(f.read_bytes())
    assert nmt.Translator(str(model_dir)).shortlist
    auto = nmt.Translator(str(bare))
    assert not auto.shortlist
    assert [t.text for t in auto.translate(sources)] == \
        [t.text for t in nmt.Translator(str(model_dir), shortlist="off").translate(sources)]
    with pytest.raises(FileNotFoundError, match=f"^no shortlist {bare}/shortlist.bin \\(make one with nmt-shortlist"):
        nmt.Translator(str(bare), shortlist="on")


def eight_bit_activations(bin_dir):
    """Whether int8 products quantize activations to 8 bits here (AVX-512 VNNI), as nmt-bench-model --kernels says."""
    kernels = run(bin_dir / "nmt-bench-model", "--kernels")
    return "int8 products (--int8): 8-bit activations" in kernels


def test_with_a_short_list_a_sentence_translates_alone_as_in_any_batch(model_dir, corpus, bin_dir, tmp_path):
    """Each sentence chooses among its own shortlist, not its batch's: 200 sentences alone and in one call
    translate the same, and forced decoding (score) gives the search's own output the search's score."""
    short = tmp_path / "short"
    shutil.copytree(model_dir, short)
    run(bin_dir / "nmt-shortlist", "--model", short, "--per-source", "2", "--frequent", "3")
    many = (corpus / "train.src").read_text(encoding="utf-8").splitlines()[:200]
    for int8 in ("off", "auto"):
        translator = nmt.Translator(str(short), shortlist="on", int8=int8)
        # int8's scores move in their fourth digit with the padding a batch gives the sources, with the shortlist
        # off too (1.1e-3 at most, once in 200): alone (as forced decoding reads a sentence) or in a batch.
        # Without AVX-512 VNNI activations keep 7 bits, half the resolution, twice the error (3.3e-3 once in 200).
        tolerance = 1e-4 if int8 == "off" else 3e-3 if eight_bit_activations(bin_dir) else 6e-3
        for beam in (1, 5):
            together = translator.translate(many, beam=beam, cut_loops=False)  # ("the the the" is the task's own)
            alone = [translator.translate(s, beam=beam, cut_loops=False) for s in many]
            assert [t.text for t in together] == [t.text for t in alone]
            assert [t.score for t in together] == pytest.approx([t.score for t in alone], abs=tolerance)
            forced = translator.score(many, [t.text for t in together])
            # (where the text reads back into the same pieces, and the search ended with </s>)
            same = [i for i, t in enumerate(together) if t.finished and forced[i].target_pieces == t.target_pieces]
            assert len(same) > 150
            assert [forced[i].score for i in same] == pytest.approx([together[i].score for i in same], abs=tolerance)
            if beam == 1:
                greedy = together
        whole = nmt.Translator(str(short), shortlist="off", int8=int8).translate(many)
        assert [t.text for t in whole] != [t.text for t in greedy], "the short list changed none of 200 translations"


def test_a_model_without_a_length_limit_reads_at_most_1024_pieces_a_sentence(model_dir, tmp_path):
    free = tmp_path / "free"
    shutil.copytree(model_dir, free)
    config = (free / "config.ini").read_text(encoding="utf-8").splitlines()
    (free / "config.ini").write_text("\n".join(l for l in config if not l.startswith("max-length")) + "\n",
                                     encoding="utf-8")
    with pytest.warns(nmt.TruncationWarning, match=r"^1 of 2 sentences had more pieces than the model reads "
                                                   r"\(1024\) and were cut; the first is sentence 1 "
                                                   r"\(Translation.truncated\)$") as caught:
        short, t = nmt.Translator(str(free)).translate(["der Hund", " ".join(["der Hund"] * 2000)])
    assert len(caught) == 1 and caught[0].filename == __file__  # once a call, at the caller's line
    assert t.truncated and not short.truncated
    assert len(t.source_pieces) == 1025  # and </s>


# How long after Ctrl-C a call may still run: it asks between sentences as it reads them (0.02-0.04 s here)
# and between batches; reading 80,000 sentences without asking took 0.45 s here and 1.2 s on Debian 13.
PROMPTLY = 0.4


def interrupted_after(seconds, call):
    """Sends this process SIGINT `seconds` into `call`; how long after the signal KeyboardInterrupt came."""
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        timer.cancel()
    return time.perf_counter() - start - seconds


@pytest.mark.parametrize("threads", [1, 2])  # 2: two batches at once, the call's thread waiting on them
def test_ctrl_c_interrupts_translate_and_score_between_batches(model_dir, sources, threads):
    translator = nmt.Translator(str(model_dir), threads=threads)
    many = sources * 2000  # 80,000 sentences: minutes of work
    assert interrupted_after(0.2, lambda: translator.translate(many, beam=5)) < PROMPTLY
    assert interrupted_after(0.2, lambda: translator.translate(many)) < PROMPTLY
    assert interrupted_after(0.2, lambda: translator.score(many, many)) < PROMPTLY
    assert [t.text for t in translator.translate(sources[:3])] == [t.text for t in nmt.Translator(str(model_dir)).translate(sources[:3])]


def test_ctrl_c_during_translate_file_leaves_no_output_and_an_old_one_as_it_was(model_dir, sources, tmp_path):
    translator = nmt.Translator(str(model_dir))
    source = tmp_path / "many.src"
    source.write_text("\n".join(sources * 2000) + "\n", encoding="utf-8")
    assert interrupted_after(0.2, lambda: translator.translate_file(str(source), str(tmp_path / "new.txt"))) < PROMPTLY
    assert sorted(p.name for p in tmp_path.iterdir()) == ["many.src"]
    (tmp_path / "old.txt").write_text("kept\n", encoding="utf-8")
    assert interrupted_after(0.2, lambda: translator.translate_file(str(source), str(tmp_path / "old.txt"), beam=3)) < PROMPTLY
    assert (tmp_path / "old.txt").read_text(encoding="utf-8") == "kept\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["many.src", "old.txt"]


def test_translations_compare_equal_pickle_and_become_dicts(model_dir, sources):
    translator = nmt.Translator(str(model_dir))
    first = translator.translate(sources[:4] + [""], beam=3, nbest=2, attention=True)
    again = translator.translate(sources[:4] + [""], beam=3, nbest=2, attention=True)
    assert first == again and first[0] != first[1] and first[0].nbest[0] == again[0].nbest[0]
    assert first[0].nbest[0] != first[0].nbest[1]
    copied = pickle.loads(pickle.dumps(first))
    assert copied == first
    assert numpy.array_equal(copied[0].attention, first[0].attention) and copied[4].attention is None
    assert [h.text for h in copied[2].nbest] == [h.text for h in first[2].nbest]
    with multiprocessing.get_context("spawn").Pool(1) as pool:  # results cross processes
        assert pool.apply(len, (first,)) == 5
    d = first[0].to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["text"] == first[0].text and d["score"] == first[0].score
    assert d["source_pieces"] == first[0].source_pieces and d["target_pieces"] == first[0].target_pieces
    assert [h["text"] for h in d["nbest"]] == [h.text for h in first[0].nbest]
    assert numpy.array_equal(numpy.array(d["attention"], dtype=numpy.float32), first[0].attention)
    assert first[4].to_dict()["nbest"] == [] and first[4].to_dict()["attention"] is None
    with pytest.raises(TypeError, match="unhashable"):
        hash(first[0])


def test_progress_counts_sentences_done_and_what_it_raises_stops_the_call(model_dir, sources):
    translator = nmt.Translator(str(model_dir))
    many = sources * 50 + ["", ""]  # 2,002 sentences, two of them empty
    told = []
    assert len(translator.translate(many, progress=told.append)) == len(many)
    assert told and told[-1] == len(many) and told == sorted(set(told))  # growing, the total last
    told = []
    translator.score(sources, sources, progress=told.append)
    assert told[-1] == len(sources)
    with pytest.raises(TypeError, match="^progress must be callable, not int$"):
        translator.translate(sources, progress=5)

    def broken(done):
        raise ZeroDivisionError("the bar broke")
    with pytest.raises(ZeroDivisionError, match="the bar broke"):
        translator.translate(many, progress=broken)


def test_translate_iterable_is_lazy_in_order_and_translate_s_translations(model_dir, sources, tmp_path):
    translator = nmt.Translator(str(model_dir))
    whole = translator.translate(sources)
    (tmp_path / "in.txt").write_text("\n".join(sources) + "\n", encoding="utf-8")
    with open(tmp_path / "in.txt", encoding="utf-8") as lines:  # a file object: its lines' ends are not read
        assert list(translator.translate_iterable(lines)) == whole
    assert [t.text for t in translator.translate_iterable(iter(sources), window=7, beam=2)] == \
        [t.text for t in translator.translate(sources, beam=2)]

    def failing_after(n):
        for i, sentence in enumerate(sources):
            if i == n:
                raise RuntimeError("the source failed")
            yield sentence
    got = []
    with pytest.raises(RuntimeError, match="the source failed"):
        for t in translator.translate_iterable(failing_after(10), window=4):
            got.append(t.text)
    assert got == [t.text for t in whole[:10]]  # every sentence it gave, then its error

    told = []
    assert len(list(translator.translate_iterable(iter(sources), window=16, progress=told.append))) == len(sources)
    assert told[-1] == len(sources) and told == sorted(told)
    with pytest.raises(TypeError, match="^texts must be an iterable of str, not str$"):
        next(translator.translate_iterable("Ein Hund."))
    with pytest.raises(ValueError, match="^window must be at least 1, not 0$"):
        next(translator.translate_iterable(sources, window=0))


def test_the_nbest_list_is_ordered_by_normalized_score(model_dir, sources):
    translator = nmt.Translator(str(model_dir))
    # (cut_loops=False: the tiny task's "the the the" is its own, and a cut translation keeps the search's scores)
    for t in translator.translate(sources[:10], beam=4, nbest=4, length_penalty=1.0, cut_loops=False):
        ranks = [h.normalized_score for h in t.nbest]
        assert ranks == sorted(ranks, reverse=True)
        for h in t.nbest:  # the length: the pieces produced, </s> included
            assert h.normalized_score == pytest.approx(h.score / ((5 + len(h.pieces)) / 6) ** 1.0, rel=1e-12)
    for t in translator.translate(sources[:10], beam=4, nbest=2, length_penalty=0.0):
        assert [h.normalized_score for h in t.nbest] == [h.score for h in t.nbest]
    for t in translator.translate(sources[:10]) + translator.score(sources[:2], sources[:2]):
        assert t.nbest[0].normalized_score == t.nbest[0].score  # nothing ranked


def test_runtime_says_the_threads_as_they_are_now(model_dir):
    first = nmt.Translator(str(model_dir), threads=1)
    assert first.runtime.endswith("OpenBLAS threads 1")
    second = nmt.Translator(str(model_dir), threads=2)  # threads are process-wide
    assert first.runtime.endswith("OpenBLAS threads 2") and second.runtime == first.runtime
    nmt.Translator(str(model_dir), threads=1)  # as the other tests expect
    assert first.runtime.endswith("OpenBLAS threads 1")
