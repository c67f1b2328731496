"""Token-id BLEU and ROUGE for RL rewards: numpy and torch (CPU; CUDA where present),
padded with lengths or pad ids, ragged multi-references; equal to the string metrics on
the ids written as words, and to TensorBLEU's tensor_sentence_bleu (rxlm) in its
convention; the TRL reward function on completion_ids, sync and async; bad input."""
from __future__ import annotations

import asyncio

import numpy as np
import pytest

import fastamfm
from fastamfm.integrations.trl_token_ids import token_reward_function

torch = pytest.importorskip("torch")


def _batch(seed=0, n=64, width=30, n_refs=3, vocab=40):
    rng = np.random.default_rng(seed)
    hyps = rng.integers(1, vocab, (n, width))
    lengths = rng.integers(0, width + 1, n)
    refs = rng.integers(1, vocab, (n, n_refs, width))
    ref_lengths = rng.integers(1, width + 1, (n, n_refs))
    return hyps, lengths, refs, ref_lengths


def _words(ids) -> str:
    return " ".join(f"w{t}" for t in ids)


def _as_text(hyps, lengths, refs, ref_lengths):
    texts = [_words(hyps[i, :lengths[i]]) for i in range(len(hyps))]
    ref_texts = [[_words(refs[i, k, :ref_lengths[i, k]]) for k in range(refs.shape[1]) if ref_lengths[i, k] > 0]
                 for i in range(len(hyps))]
    return texts, ref_texts


@pytest.mark.parametrize("smooth", ["exp", "floor", "add-k", "none"])
def test_bleu_equals_sacrebleu_on_the_ids_written_as_words(smooth):
    hyps, lengths, refs, ref_lengths = _batch()
    ref_lengths[::5, 1] = 0   # ragged: a missing reference
    ours = fastamfm.token_bleu(hyps, refs, lengths=lengths, ref_lengths=ref_lengths, smooth=smooth)
    texts, ref_texts = _as_text(hyps, lengths, refs, ref_lengths)
    strings = fastamfm.sacrebleu(texts, ref_texts, tokenize="none", smooth_method=smooth, effective_order=True)
    assert ours.tolist() == (strings.sentences["sacreBLEU"] / 100).tolist()


def test_rouge_equals_rouge_score_on_the_ids_written_as_words():
    hyps, lengths, refs, ref_lengths = _batch(1)
    texts, ref_texts = _as_text(hyps, lengths, refs, ref_lengths)
    strings = fastamfm.rouge(texts, ref_texts, rouge_types=["rouge1", "rouge2", "rougeL"])
    for rouge_type in ("rouge1", "rouge2", "rougeL"):
        for measure, suffix in (("fmeasure", ""), ("precision", "_precision"), ("recall", "_recall")):
            ours = fastamfm.token_rouge(hyps, refs, rouge_type=rouge_type, measure=measure, lengths=lengths,
                                        ref_lengths=ref_lengths)
            assert ours.tolist() == strings[rouge_type + suffix].tolist()


def test_forms_agree_numpy_torch_ragged_and_pad_id():
    hyps, lengths, refs, ref_lengths = _batch(2)
    base = fastamfm.token_bleu(hyps, refs, lengths=lengths, ref_lengths=ref_lengths)
    ragged_h = [list(hyps[i, :lengths[i]]) for i in range(len(hyps))]
    ragged_r = [[list(refs[i, k, :ref_lengths[i, k]]) for k in range(3)] for i in range(len(hyps))]
    assert fastamfm.token_bleu(ragged_h, ragged_r).tolist() == base.tolist()
    padded_h = np.where(np.arange(30)[None] < lengths[:, None], hyps, 0)
    padded_r = np.where(np.arange(30)[None, None] < ref_lengths[:, :, None], refs, 0)
    assert fastamfm.token_bleu(padded_h, padded_r, pad_id=0).tolist() == base.tolist()
    tensor = fastamfm.token_bleu(torch.tensor(padded_h), torch.tensor(padded_r), pad_id=0)
    assert tensor.dtype == torch.float32 and tensor.device.type == "cpu"
    assert tensor.tolist() == torch.tensor(base, dtype=torch.float32).tolist()
    ragged_tensors = fastamfm.token_bleu([torch.tensor(h, dtype=torch.long) for h in ragged_h],
                                         [[torch.tensor(r) for r in rs] for rs in ragged_r])
    assert ragged_tensors.tolist() == base.tolist()
    one_ref = fastamfm.token_bleu(hyps, refs[:, 0], lengths=lengths, ref_lengths=ref_lengths[:, 0])
    assert one_ref.tolist() == fastamfm.token_bleu(ragged_h, [[r[0]] for r in ragged_r]).tolist()


@pytest.mark.parametrize("smooth", ["exp", "floor", "add-k", "none"])
def test_tensorbleu_convention_equals_rxlm(smooth):
    tensorbleu = pytest.importorskip("rxlm.metrics.tensorbleu", reason="rxlm (TensorBLEU) is not installed: "
                                     "pip install --no-deps rxlm (its own requirements pin transformers<5)")
    hyps, lengths, refs, ref_lengths = _batch(3, n=128)
    padded_h = torch.tensor(np.where(np.arange(30)[None] < lengths[:, None], hyps, 0))
    padded_r = torch.tensor(np.where(np.arange(30)[None, None] < ref_lengths[:, :, None], refs, 0))
    ours = fastamfm.token_bleu(padded_h, padded_r, pad_id=0, smooth=smooth, convention="tensorbleu")
    theirs = tensorbleu.tensor_sentence_bleu(padded_h, padded_r, pad_token_id=0, smoothing_method=smooth)
    # TensorBLEU computes in float32; the convention here in double precision.
    assert (ours.double() - theirs.double()).abs().max().item() < 1e-6


def test_sacrebleu_convention_equals_tensorbleu_where_their_rules_meet():
    """The two conventions agree (to float32) on 'none' smoothing where every precision is
    positive and no closest-length tie is broken differently."""
    tensorbleu = pytest.importorskip("rxlm.metrics.tensorbleu", reason="rxlm (TensorBLEU) is not installed")
    rng = np.random.default_rng(4)
    hyps = rng.integers(1, 4, (64, 12))
    refs = np.stack([hyps, rng.integers(1, 4, (64, 12))], axis=1)
    ours = fastamfm.token_bleu(hyps, refs, smooth="none")
    theirs = tensorbleu.tensor_sentence_bleu(torch.tensor(hyps), torch.tensor(refs), smoothing_method="none")
    assert np.abs(ours - theirs.double().numpy()).max() < 1e-6


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_tensors_come_back_on_their_device():
    hyps, lengths, refs, ref_lengths = _batch(5)
    on_cpu = fastamfm.token_bleu(torch.tensor(hyps), torch.tensor(refs), lengths=torch.tensor(lengths),
                                 ref_lengths=torch.tensor(ref_lengths))
    on_gpu = fastamfm.token_bleu(torch.tensor(hyps).cuda(), torch.tensor(refs).cuda(),
                                 lengths=torch.tensor(lengths).cuda(), ref_lengths=torch.tensor(ref_lengths).cuda())
    assert on_gpu.device.type == "cuda" and on_gpu.cpu().tolist() == on_cpu.tolist()


def test_bad_input_is_a_clear_error():
    hyps, lengths, refs, ref_lengths = _batch(6, n=4)
    with pytest.raises(ValueError, match=r"hyps\[1\]: token id -3 is negative"):
        fastamfm.token_bleu([[1, 2], [4, -3]], [[[1]], [[2]]])
    with pytest.raises(ValueError, match=r"refs\[0\]: token id 50 is outside 0..39"):
        fastamfm.token_bleu([[1]], [[[50]]], vocab_size=40)
    with pytest.raises(ValueError, match="4 hyps but refs holds 3 reference sets"):
        fastamfm.token_bleu(hyps, refs[:3], lengths=lengths)
    with pytest.raises(ValueError, match=r"hyps\[0\]: length 31 outside 0..30"):
        fastamfm.token_bleu(hyps, refs, lengths=np.array([31, 1, 1, 1]))
    with pytest.raises(TypeError, match="must hold integer token ids"):
        fastamfm.token_bleu(hyps.astype(float), refs)
    with pytest.raises(TypeError, match="must hold integer token ids"):
        fastamfm.token_bleu(torch.zeros(2, 3), torch.zeros(2, 1, 3))
    with pytest.raises(ValueError, match=r"refs\[0\] has no reference"):
        fastamfm.token_bleu([[1]], [[]])
    with pytest.raises(ValueError, match="hyps is empty"):
        fastamfm.token_bleu([], [])
    with pytest.raises(ValueError, match="convention must be one of"):
        fastamfm.token_bleu([[1]], [[[1]]], convention="nltk")
    with pytest.raises(ValueError, match="no lines; use rougeL"):
        fastamfm.token_rouge([[1]], [[[1]]], rouge_type="rougeLsum")


def test_mixed_devices_are_an_error():
    hyps = torch.tensor([[1, 2]])
    refs = torch.tensor([[[1, 2]]])
    if torch.cuda.is_available():
        with pytest.raises(ValueError, match="hyps are on cuda:0 but refs on cpu"):
            fastamfm.token_bleu(hyps.cuda(), refs)
    else:
        meta = torch.empty((1, 1, 2), dtype=torch.long, device="meta")
        with pytest.raises(ValueError, match="hyps are on cpu but refs on meta"):
            fastamfm.token_bleu(hyps, meta)


def test_empty_completions_score_zero():
    assert fastamfm.token_bleu([[], [1, 2, 3, 4]], [[[1]], [[1, 2, 3, 4]]]).tolist()[0] == 0.0
    assert fastamfm.token_rouge([[]], [[[1]]]).tolist() == [0.0]


def test_trl_reward_on_completion_ids_sync_and_async():
    from trl.trainer.utils import is_async_callable

    reward = token_reward_function("bleu", references="reference_ids")
    completion_ids = [[5, 6, 7, 8], [1, 2]]
    reference_ids = [[5, 6, 7, 8], [[1, 2, 3], [9]]]
    expected = fastamfm.token_bleu(completion_ids, [[reference_ids[0]], reference_ids[1]]).tolist()
    assert reward(prompts=["p", "q"], completions=["a", "b"], completion_ids=completion_ids,
                  reference_ids=reference_ids, trainer_state=None) == expected
    asynchronous = reward.asynchronous()
    assert is_async_callable(asynchronous) and not is_async_callable(reward)
    assert asyncio.run(asynchronous(completion_ids=completion_ids, reference_ids=reference_ids)) == expected
    rouge = token_reward_function("rougeL")
    assert rouge(completion_ids=[[1, 2, 3]], reference_ids=[[3, 2, 1]]) == [pytest.approx(1 / 3)]
    with pytest.raises(KeyError, match="no dataset column 'reference_ids'"):
        reward(completion_ids=completion_ids)
    with pytest.raises(TypeError, match="called without completion_ids"):
        reward(completions=["a"])
    with pytest.raises(ValueError, match="unknown rouge type"):
        token_reward_function("rougeQ")
