"""Training-speed peer: nmt's full-Transformer preset written the way a PyTorch user writes it (eager).

The shape of configs/multi30k-de-en-transformer-full.ini: pre-norm encoder and decoder (3 + 3 layers, d 256,
4 heads, feed-forward 1024, dropout 0.2), one embedding matrix for source, target and output layer (joint BPE,
read from nmt's bpe.model so both sides see the same pieces), label smoothing 0.1, Adam, clipping 1.0. Batches
are cut as nmt cuts them: sorted by (target, source) length, rows * max(source + 1, target + 2) <= the token
budget. Tokens counted as nmt's metrics.csv counts them: source pieces + </s>, <s> + target pieces + </s>, no padding.
  /usr/bin/python3 bench/peers/torch_transformer.py --bpe RUN/bpe.model --data data/multi30k \
      [--steps 60] [--batch-tokens 4096] [--threads 1] [--precision fp32|bf16]
  prints: bench: 60 steps, N tokens/s, M ms/step
For benchmarks only (bench/train-speed.sh --peer runs it); needs Debian's python3-torch and python3-sentencepiece.
"""
import argparse, math, os, random, sys, time
import sentencepiece as spm
import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, BOS, EOS = 0, 2, 3  # nmt's BPE models: <pad> 0, <unk> 1, <s> 2, </s> 3


class Transformer(nn.Module):
    def __init__(s, vocab, d=256, heads=4, layers=3, ff=1024, drop=0.2):
        super().__init__()
        s.d = d
        s.emb = nn.Embedding(vocab, d, padding_idx=PAD)
        nn.init.normal_(s.emb.weight, std=d ** -0.5)
        pe = torch.zeros(1024, d)
        pos = torch.arange(0, 1024).unsqueeze(1)
        div = torch.exp(torch.arange(0, d, 2) * -(math.log(10000.0) / d))
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        s.register_buffer("pe", pe)
        s.net = nn.Transformer(d, heads, layers, layers, ff, drop, batch_first=True, norm_first=True)
        s.drop = nn.Dropout(drop)

    def embed(s, x):
        return s.drop(s.emb(x) * math.sqrt(s.d) + s.pe[: x.size(1)])

    def forward(s, x, y):
        causal = torch.triu(torch.full((y.size(1), y.size(1)), float("-inf")), diagonal=1)
        h = s.net(s.embed(x), s.embed(y), tgt_mask=causal, src_key_padding_mask=x == PAD,
                  tgt_key_padding_mask=y == PAD, memory_key_padding_mask=x == PAD)
        return h @ s.emb.weight.t()  # the output layer is the embedding matrix


def read_pairs(data, sp, max_length=100):
    with open(os.path.join(data, "train.de"), encoding="utf-8") as f:
        src = [l.rstrip("\n") for l in f]
    with open(os.path.join(data, "train.en"), encoding="utf-8") as f:
        tgt = [l.rstrip("\n") for l in f]
    pairs = [(sp.encode(a), sp.encode(b)) for a, b in zip(src, tgt)]
    return [p for p in pairs if 0 < len(p[0]) <= max_length and 0 < len(p[1]) <= max_length]


def rows(pair):
    """The source and target rows a pair takes in a batch (source + </s>, <s> + target + </s>): nmt's batchLengthOf."""
    return len(pair[0]) + 1, len(pair[1]) + 2


def batches(pairs, budget):
    order = sorted(range(len(pairs)), key=lambda i: (len(pairs[i][1]), len(pairs[i][0]), random.random()))
    out, cur, longest = [], [], 0
    for i in order:
        m = max(longest, *rows(pairs[i]))
        if cur and m * (len(cur) + 1) > budget:
            out.append(cur)
            cur, m = [], max(rows(pairs[i]))
        cur.append(i)
        longest = m
    out.append(cur)
    random.shuffle(out)
    return out


def padded(rows):
    n = max(len(r) for r in rows)
    return torch.tensor([r + [PAD] * (n - len(r)) for r in rows])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bpe", required=True, help="nmt's joint bpe.model")
    p.add_argument("--data", required=True)
    p.add_argument("--steps", type=int, default=60, help="timed steps, after as many untimed ones")
    p.add_argument("--batch-tokens", type=int, default=4096)
    p.add_argument("--threads", type=int, default=1, help="PyTorch's intra-op threads")
    p.add_argument("--precision", choices=["fp32", "bf16"], default="fp32", help="bf16: CPU autocast")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    random.seed(1)
    torch.manual_seed(1)
    sp = spm.SentencePieceProcessor(model_file=a.bpe)
    pairs = read_pairs(a.data, sp)
    model = Transformer(sp.get_piece_size())
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9)
    plan = batches(pairs, a.batch_tokens)
    if len(plan) < 2 * a.steps:
        sys.exit(f"torch_transformer: only {len(plan)} batches in an epoch; ask for fewer --steps")
    t0, tokens = time.time(), 0
    for step, b in enumerate(plan[: 2 * a.steps], start=1):
        model.train()
        x = padded([pairs[i][0] + [EOS] for i in b])
        y_in = padded([[BOS] + pairs[i][1] for i in b])
        y_out = padded([pairs[i][1] + [EOS] for i in b])
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.precision == "bf16"):
            logits = model(x, y_in)
        loss = F.cross_entropy(logits.float().reshape(-1, logits.size(-1)), y_out.reshape(-1), ignore_index=PAD,
                               label_smoothing=0.1)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step == a.steps:
            t0, tokens = time.time(), 0
        elif step > a.steps:
            tokens += sum(sum(rows(pairs[i])) for i in b)
    el = time.time() - t0
    print(f"bench: {a.steps} steps, {tokens / el:.0f} tokens/s, {el / a.steps * 1000:.0f} ms/step, "
          f"{sum(q.numel() for q in model.parameters())} parameters")


if __name__ == "__main__":
    main()
