"""nmt.Translator with a prefix, alternatives, sampling, no repeats and alignments: as nmt-translate gives them."""

import pickle

import pytest

import nmt
from conftest import run


@pytest.fixture(scope="module")
def translator(model_dir):
    return nmt.Translator(model_dir)


def test_a_prefix_is_kept_and_counted_and_matches_nmt_translate(bin_dir, model_dir, translator, tmp_path):
    sentences = ["der Hund sieht die Katze", "die Frau spielt mit Ball"]
    prefixes = ["the cat", None]
    out = translator.translate(sentences, prefix=prefixes)
    assert out[0].text.startswith("the cat")
    given = out[0].nbest[0].prefix_pieces
    assert "".join(out[0].target_pieces[:given]).replace("\u2581", " ").strip() == "the cat"
    assert out[0] == translator.translate(sentences[0], prefix="the cat")
    assert out[1].nbest[0].prefix_pieces == 0
    assert out[1].text == translator.translate(sentences[1]).text
    (tmp_path / "in.txt").write_text("\n".join(sentences) + "\n", encoding="utf-8")
    (tmp_path / "prefixes.txt").write_text("the cat\n\n", encoding="utf-8")
    program = run(bin_dir / "nmt-translate", "--model", model_dir, "--input", tmp_path / "in.txt", "--prefixes",
                  tmp_path / "prefixes.txt")
    assert program.splitlines() == [t.text for t in out]
    assert translator.translate(sentences[0], prefix="the cat", beam=3, nbest=3).nbest[2].text.startswith("the cat")


def test_alternatives_are_sorted_and_each_translation_begins_with_its_piece(translator):
    alternatives = translator.alternatives("der Hund sieht die Katze", prefix="the", count=4)
    assert len(alternatives) == 4
    assert all(isinstance(a, nmt.Alternative) for a in alternatives)
    probabilities = [a.log_probability for a in alternatives]
    assert probabilities == sorted(probabilities, reverse=True)
    assert len({a.id for a in alternatives}) == 4
    for a in alternatives:
        assert a.translation.text.startswith("the")
        if a.piece != "</s>":
            assert a.translation.pieces[a.translation.prefix_pieces - 1] == a.piece
        assert a.to_dict()["translation"]["text"] == a.translation.text
    assert alternatives[0].translation.text == translator.translate("der Hund sieht die Katze", prefix="the").text
    assert repr(alternatives[0]).startswith("Alternative(")
    with pytest.raises(ValueError, match="^count must be between 1 and 100, not 0$"):
        translator.alternatives("der Hund", count=0)
    with pytest.raises(TypeError):
        translator.alternatives(["der Hund"])


def test_sampling_is_seeded_and_checked(translator, sources):
    first = translator.translate(sources, sampling_topk=0, sampling_temperature=3.0, seed=1)
    again = translator.translate(sources, sampling_topk=0, sampling_temperature=3.0, seed=1, batch_size=5)
    other = translator.translate(sources, sampling_topk=0, sampling_temperature=3.0, seed=2)
    assert [t.text for t in again] == [t.text for t in first]
    assert [t.text for t in other] != [t.text for t in first]
    # with a beam, each step's candidates are drawn: seeded as well
    sampled_beam = dict(sampling_topk=0, sampling_temperature=3.0, seed=1, beam=3, nbest=3)
    first_beam = translator.translate(sources, **sampled_beam)
    assert [[h.text for h in t.nbest] for t in translator.translate(sources, **sampled_beam, batch_size=5)] == [
        [h.text for h in t.nbest] for t in first_beam]
    assert all(len(t.nbest) == 3 for t in first_beam)
    with pytest.raises(ValueError, match="sampling_temperature must be a number above 0 and at most 100, not -1"):
        translator.translate(sources[0], sampling_topk=0, sampling_temperature=-1)
    with pytest.raises(TypeError):
        translator.translate(sources[0], seed="1")


def test_no_repeat_ngram_leaves_no_repeated_word(translator, sources):
    def repeats(text):
        words = text.split()
        return len(words) != len(set(words))
    assert any(repeats(t.text) for t in translator.translate(sources))
    assert not any(repeats(t.text) for t in translator.translate(sources, no_repeat_ngram=1))


def test_alignments_pair_every_target_word_and_travel_with_the_translation(translator, bin_dir, model_dir, tmp_path):
    t = translator.translate("der Hund sieht die Katze", alignment=True)
    assert t.text == "the dog sees the cat"
    assert sorted({target for _, target in t.alignment}) == [0, 1, 2, 3, 4]
    assert all(0 <= source < 5 for source, _ in t.alignment)
    assert t.to_dict()["alignment"] == t.alignment
    assert pickle.loads(pickle.dumps(t)) == t
    assert translator.translate("der Hund sieht die Katze").alignment == []
    (tmp_path / "in.txt").write_text("der Hund sieht die Katze\n", encoding="utf-8")
    program = run(bin_dir / "nmt-translate", "--model", model_dir, "--input", tmp_path / "in.txt", "--alignment")
    assert program == t.text + " ||| " + " ".join(f"{s}-{j}" for s, j in t.alignment) + "\n"
    with pytest.raises(ValueError, match="alignment_threshold must be a number from 0"):
        translator.translate("der Hund", alignment=True, alignment_threshold=2.0)


def test_a_glossary_as_a_dict_pairs_or_a_file_puts_its_terms_in_the_translation(translator, sources, tmp_path):
    with_hund = [s for s in sources if "Hund" in s.split()]
    assert with_hund
    (tmp_path / "g.tsv").write_text("# terms\nHund\tcat\n", encoding="utf-8")
    for glossary in ({"Hund": "cat"}, [("Hund", "cat")], str(tmp_path / "g.tsv"), tmp_path / "g.tsv"):
        out = translator.translate(with_hund, beam=5, glossary=glossary)
        assert all("cat" in t.text.split() for t in out), (glossary, [t.text for t in out])
        assert all(t.missing_terms == [] for t in out)
    assert translator.translate(with_hund[0], beam=5, glossary={"Hund": "cat"}).to_dict()["missing_terms"] == []
    with pytest.raises(ValueError, match="^glossary needs beam search: set beam 2 or more \\(5 is usual\\)$"):
        translator.translate(with_hund[0], glossary={"Hund": "cat"})
    with pytest.raises(TypeError, match=r"glossary\[0\] must be a \(source term, target term\) pair"):
        translator.translate(with_hund[0], beam=5, glossary=["Hund"])
    with pytest.raises(TypeError, match="glossary's values must be str, not int"):
        translator.translate(with_hund[0], beam=5, glossary={"Hund": 3})
    with pytest.raises(ValueError, match="^glossary:1: an empty target term$"):
        translator.translate(with_hund[0], beam=5, glossary={"Hund": ""})
    (tmp_path / "bad.tsv").write_text("Hund cat\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.tsv:1: expected 'source term<TAB>target term', one tab"):
        translator.translate(with_hund[0], beam=5, glossary=tmp_path / "bad.tsv")
