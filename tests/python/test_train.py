"""nmt.train: nmt-train's run in this process, with its numbers, files and stops."""

import csv
import os
import pathlib
import signal

import pytest

import nmt
from conftest import run


def metrics_without_times(model_dir):
    with open(model_dir / "metrics.csv", encoding="utf-8", newline="") as f:
        return [{k: v for k, v in row.items() if k not in ("tokens_per_s", "elapsed_s")} for row in csv.DictReader(f)]


def data_options(corpus):
    return {"train_src": str(corpus / "train.src"), "train_tgt": str(corpus / "train.tgt"),
            "valid_src": str(corpus / "valid.src"), "valid_tgt": str(corpus / "valid.tgt")}


def test_a_run_is_nmt_trains_on_the_same_seed(bin_dir, corpus, tiny_options, tmp_path):
    steps = {"max_steps": 200, "valid_every": 100, "log_every": 50, "device": "cpu", "max_length": 40}
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in {**data_options(corpus), **tiny_options, **steps}.items()]
    run(bin_dir / "nmt-train", *flags, "--model-dir", tmp_path / "program")
    heard = []
    summary = nmt.train(model_dir=str(tmp_path / "python"), quiet=True, on_validation=heard.append,
                        **data_options(corpus), **tiny_options, **steps)
    assert metrics_without_times(tmp_path / "python") == metrics_without_times(tmp_path / "program")
    assert (tmp_path / "python" / "config.ini").read_text().split("# trained on")[0] == \
        (tmp_path / "program" / "config.ini").read_text().split("# trained on")[0]
    validated = [row for row in metrics_without_times(tmp_path / "program") if row["valid_bleu"]]
    assert [e["step"] for e in heard] == [int(row["step"]) for row in validated]  # each epoch's end, and 100, 200
    assert [round(e["bleu"], 2) for e in heard] == [float(row["valid_bleu"]) for row in validated]
    assert summary["steps"] == 200 and summary["stopped_by"] == "max_steps"
    assert summary["best_bleu"] == max(e["bleu"] for e in heard)
    assert summary["best_step"] == max(heard, key=lambda e: (e["bleu"], -e["step"]))["step"]
    assert os.path.exists(summary["best"]) and summary["last"].endswith("last.pt")
    translator = nmt.Translator(summary["model_dir"])
    assert translator.translate("der Hund").text


def test_a_callbacks_exception_stops_training_after_the_checkpoint(corpus, tiny_options, tmp_path):
    def stop(event):
        raise ValueError(f"enough at step {event['step']}")

    with pytest.raises(ValueError, match=r"^enough at step \d+$"):
        nmt.train(model_dir=str(tmp_path / "run"), quiet=True, on_validation=stop, max_steps=500, valid_every=50,
                  **data_options(corpus), **tiny_options)
    assert (tmp_path / "run" / "last.pt").exists()
    summary = nmt.train(model_dir=str(tmp_path / "run"), resume=True, quiet=True, max_steps=100)
    assert summary["steps"] == 100


def test_ctrl_c_saves_a_checkpoint_and_raises_keyboard_interrupt(corpus, tiny_options, tmp_path):
    def interrupt(event):
        os.kill(os.getpid(), signal.SIGINT)

    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt, match=r"^stopped by SIGINT at step \d+; saved .*last.pt; .*continue with "
                                                r"nmt.train\(model_dir='.*run', resume=True\)$"):
        nmt.train(model_dir=str(tmp_path / "run"), quiet=True, on_validation=interrupt, max_steps=500,
                  valid_every=50, **data_options(corpus), **tiny_options)
    assert signal.getsignal(signal.SIGINT) is before  # Python's own handler is back
    assert (tmp_path / "run" / "last.pt").exists()


def test_bad_options_name_the_keyword_as_python_does(corpus, tmp_path):
    run = tmp_path / "run"
    with pytest.raises(TypeError, match=r"^train\(\) got an unexpected keyword argument 'max_stepz'$"):
        nmt.train(model_dir=str(run), max_stepz=3)
    with pytest.raises(TypeError, match="^max_steps must be int, not str$"):
        nmt.train(model_dir=str(run), max_steps="3")
    with pytest.raises(TypeError, match="^max_steps must be int, not bool$"):
        nmt.train(model_dir=str(run), max_steps=True)
    with pytest.raises(TypeError, match="^joint_vocab must be bool, not int$"):
        nmt.train(model_dir=str(run), joint_vocab=1)
    with pytest.raises(TypeError, match=r"^train_src must be str or os.PathLike, not list$"):
        nmt.train(model_dir=str(run), train_src=["a"])
    with pytest.raises(ValueError, match="^vocab_size must be a whole number from -2147483648 to 2147483647, not 4294967296$"):
        nmt.train(model_dir=str(run), vocab_size=2**32)
    with pytest.raises(ValueError, match="^model_dir is required$"):
        nmt.train(max_steps=3)
    with pytest.raises(ValueError, match="^no training data: give train_src/train_tgt or train$"):
        nmt.train(model_dir=str(run), quiet=True, valid=str(tmp_path / "v.tsv"))
    with pytest.raises(ValueError, match="^nothing to resume: .*last.pt does not exist$"):
        nmt.train(model_dir=str(tmp_path / "none"), resume=True, **data_options(corpus))


def test_paths_may_be_pathlib_paths(corpus, tiny_options, tmp_path):
    options = {k: pathlib.Path(v) for k, v in data_options(corpus).items()}
    summary = nmt.train(model_dir=tmp_path / "run", quiet=True, max_steps=2, valid_every=2, **options, **tiny_options)
    assert summary["steps"] == 2 and summary["stopped_by"] == "max_steps"
    assert summary["message"].startswith("reached max_steps 2; ")


def test_a_loss_that_is_not_finite_is_a_runtime_error(corpus, tiny_options, tmp_path):
    options = {**tiny_options, "lr": 1e30, "clip_norm": 0}
    with pytest.raises(RuntimeError, match=r"^training stopped at step \d+: the loss is not finite"):
        nmt.train(model_dir=str(tmp_path / "run"), quiet=True, max_steps=50, **data_options(corpus), **options)


def test_accumulation_the_weights_moving_average_and_adam_beta2_are_keywords_as_their_options_are(
        corpus, tiny_options, tmp_path):
    summary = nmt.train(model_dir=str(tmp_path / "run"), quiet=True, max_steps=20, valid_every=10, accumulate=2,
                        ema_decay=0.99, ema_start=5, adam_beta2=0.98, **data_options(corpus), **tiny_options)
    assert summary["steps"] == 20
    config = (tmp_path / "run" / "config.ini").read_text()
    assert "\naccumulate = 2\n" in config and "\nema-decay = 0.99\n" in config and "\nema-start = 5\n" in config
    assert "\nadam-beta2 = 0.98\n" in config
    assert nmt.Translator(summary["model_dir"]).translate("der Hund").text  # best.pt: the average
    with pytest.raises(ValueError, match=r"^accumulate must be at least 1 \(batches a step\)$"):
        nmt.train(model_dir=str(tmp_path / "bad"), quiet=True, accumulate=0, **data_options(corpus))
    with pytest.raises(ValueError, match=r"^ema_decay must be in \[0, 1\) \(0: no moving average\)$"):
        nmt.train(model_dir=str(tmp_path / "bad"), quiet=True, ema_decay=1.5, **data_options(corpus))
    with pytest.raises(ValueError, match=r"^adam_beta2 must be in \(0, 1\)$"):
        nmt.train(model_dir=str(tmp_path / "bad"), quiet=True, adam_beta2=1.0, **data_options(corpus))


def test_the_linear_schedule_and_subword_sampling_are_keywords_as_their_options_are(corpus, tiny_options, tmp_path):
    summary = nmt.train(model_dir=str(tmp_path / "run"), quiet=True, max_steps=20, valid_every=10,
                        lr_schedule="linear", subword_alpha=0.1, **data_options(corpus), **tiny_options)
    assert summary["steps"] == 20
    config = (tmp_path / "run" / "config.ini").read_text()
    assert "\nlr-schedule = linear\n" in config and "\nsubword-alpha = 0.1\n" in config
    with pytest.raises(ValueError, match=r"^subword_alpha must be in \[0, 1\) \(0: the one best segmentation\)$"):
        nmt.train(model_dir=str(tmp_path / "bad"), quiet=True, subword_alpha=1.0, **data_options(corpus))
