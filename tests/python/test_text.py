"""nmt.bleu, nmt.chrf and nmt.Bpe: nmt-score's and nmt-bpe's numbers and pieces."""

import json
import pickle

import pytest

import nmt
from conftest import run


def test_bleu_and_chrf_are_nmt_scores(bin_dir, corpus, tmp_path):
    references = (corpus / "valid.tgt").read_text(encoding="utf-8").splitlines()
    hypotheses = [" ".join(r.split()[:-1]) if i % 3 else r for i, r in enumerate(references)]
    (tmp_path / "hyp.txt").write_text("\n".join(hypotheses) + "\n", encoding="utf-8")
    figures = json.loads(run(bin_dir / "nmt-score", "--ref", corpus / "valid.tgt", "--hyp", tmp_path / "hyp.txt",
                             "--json"))
    bleu = nmt.bleu(hypotheses, references)
    chrf = nmt.chrf(hypotheses, [references])
    byName = {f["name"]: f for f in figures}
    assert round(bleu.score, 2) == pytest.approx(byName["BLEU"]["score"])
    assert round(chrf.score, 2) == pytest.approx(byName["chrF2"]["score"])
    assert 0 < bleu.score < 100 and bleu.bp <= 1.0 and bleu.hyp_len < bleu.ref_len
    assert str(bleu).startswith("BLEU = ")
    assert nmt.bleu(["a b c d"], [["a b c d"], ["x"]]).score == pytest.approx(100.0)
    with pytest.raises(ValueError, match="^2 hypotheses but a reference stream of 1 lines$"):
        nmt.bleu(["a", "b"], ["a"])
    # nmt-score --json's fields, unrounded; values that pickle and compare
    for score, printed in ((bleu, byName["BLEU"]), (chrf, byName["chrF2"])):
        d = score.to_dict()
        assert set(d) == set(printed)
        assert {k: v for k, v in d.items() if isinstance(v, (str, bool, int)) and not isinstance(v, float)} == \
            {k: v for k, v in printed.items() if isinstance(v, (str, bool, int)) and not isinstance(v, float)}
        assert round(d["score"], 2) == pytest.approx(printed["score"])
        assert pickle.loads(pickle.dumps(score)) == score
    assert bleu.tokenize == "13a" and bleu.smooth == "exp" and not bleu.lowercase
    assert nmt.bleu(hypotheses, references, lowercase=True).lowercase and chrf.char_order == 6
    assert bleu != nmt.bleu(references, references)


def test_score_arguments_name_what_is_wrong():
    with pytest.raises(TypeError, match=r"^references\[0\] must be str, not int$"):
        nmt.bleu(["a b"], [1])
    with pytest.raises(TypeError, match=r"^hypotheses\[1\] must be str, not int$"):
        nmt.chrf(["a", 3], ["a", "b"])
    with pytest.raises(TypeError, match=r"^references\[1\]\[0\] must be str, not NoneType$"):
        nmt.bleu(["a"], [["x"], [None]])
    with pytest.raises(TypeError, match="^hypotheses must be an iterable of str, not str$"):
        nmt.bleu("a b", ["a b"])
    assert nmt.bleu((h for h in ["a b c d"]), ("a b c d",)).score == pytest.approx(100.0)  # any iterables


def test_bpe_trains_encodes_and_decodes(corpus, tmp_path):
    bpe = nmt.Bpe.train([str(corpus / "train.src")], str(tmp_path / "bpe"), vocab_size=60)
    assert (tmp_path / "bpe.model").exists() and len(bpe) == 60 == bpe.vocab_size
    assert repr(bpe) == f"Bpe({str(tmp_path / 'bpe.model')!r}, vocab_size=60)"
    text = "der Hund sieht die Katze"
    pieces = bpe.encode(text)
    assert pieces[0].startswith("\u2581") and bpe.decode(pieces) == text
    assert bpe.decode_ids(bpe.encode_ids(text)) == text
    assert nmt.Bpe(str(tmp_path / "bpe.model")).encode(text) == pieces
    with pytest.raises(FileNotFoundError):
        nmt.Bpe(str(tmp_path / "none.model"))
