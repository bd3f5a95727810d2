"""nmt.distill: nmt-distill's run in this process: the teacher's translations, then the student's training."""

import pytest

import nmt
from conftest import run


def test_distill_trains_a_student_on_the_teachers_translations(bin_dir, model_dir, corpus, tiny_options, tmp_path):
    student = tmp_path / "student"
    rnn = {"encoder": "rnn", "decoder": "rnn", "layers": 1, "share_embeddings": False, "tie_embeddings": False}
    summary = nmt.distill(model_dir, student, teacher_beam=2, quiet=True, **rnn, **tiny_options, max_steps=20,
                          valid_every=10, device="cpu")
    translated = [line.split("\t")[3] for line in
                  (student / "distilled" / "teacher.tsv").read_text(encoding="utf-8").splitlines()]
    expected = run(bin_dir / "nmt-translate", "--model", model_dir, "--input", corpus / "train.src", "--beam", "2",
                   "--device", "cpu").splitlines()
    assert translated == expected
    assert summary["steps"] == 20 and summary["stopped_by"] == "max_steps"
    assert summary["model_dir"] == str(student)
    assert len(nmt.Translator(student).translate(["der Hund sieht die Katze"])) == 1
    # the same call again: nothing translated again, the student resumes
    again = nmt.distill(model_dir, student, teacher_beam=2, quiet=True, max_steps=30, valid_every=10)
    assert again["steps"] == 30
    assert [line.split("\t")[3] for line in
            (student / "distilled" / "teacher.tsv").read_text(encoding="utf-8").splitlines()] == expected


def test_distill_refuses_what_it_sets_and_bad_values(model_dir, tmp_path):
    with pytest.raises(TypeError, match=r"^distill\(\) sets train_src itself"):
        nmt.distill(model_dir, tmp_path / "s", train_src="x")
    with pytest.raises(TypeError, match=r"^distill\(\) got an unexpected keyword argument 'layrs'$"):
        nmt.distill(model_dir, tmp_path / "s", layrs=3)
    with pytest.raises(ValueError, match="^teacher_beam must be between 1 and 100, not 0$"):
        nmt.distill(model_dir, tmp_path / "s", teacher_beam=0)
    with pytest.raises(ValueError, match=r"^min_score is a log-probability per piece: 0 \(keep all\) or below, not 1$"):
        nmt.distill(model_dir, tmp_path / "s", min_score=1.0)
    assert not (tmp_path / "s").exists()
