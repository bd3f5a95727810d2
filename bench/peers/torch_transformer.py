"""Training-speed peer: nmt's full Transformer written the way a PyTorch user writes it (eager).

Its shape and training options come from an nmt model directory's config.ini (every option resolved; nmt-train
writes it, and bench/train-speed.sh passes the one of the run it compares with): pre-norm encoder and decoder
(embedding-size, layers, decoder-layers, heads, ff-size, decoder-ff-size, dropout), one embedding matrix for
source, target and output layer (joint BPE, read from nmt's bpe.model so both sides see the same pieces),
label-smoothing, Adam at lr, clip-norm, batch-tokens, max-length. Batches are cut as nmt cuts them: sorted by
(target, source) length, rows * max(source + 1, target + 2) <= the token budget. Tokens counted as nmt's
metrics.csv counts them: source pieces + </s>, <s> + target pieces + </s>, no padding.
  /usr/bin/python3 bench/peers/torch_transformer.py --config RUN/config.ini --bpe RUN/bpe.model \
      --data data/multi30k [--steps 60] [--threads 1] [--precision fp32|bf16]
  prints: bench: 60 steps, N tokens/s, M ms/step
For benchmarks only (bench/train-speed.sh --peer runs it); needs Debian's python3-torch and python3-sentencepiece.
"""
import argparse, math, os, random, sys, time
import sentencepiece as spm
import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, BOS, EOS = 0, 2, 3  # nmt's BPE models: <pad> 0, <unk> 1, <s> 2, </s> 3


def read_config(path):
    """An nmt config.ini's options (key = value; '#' starts a comment line)."""
    options = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                key, value = line.split("=", 1)
                options[key.strip()] = value.strip()
    return options


class Shape:
    """The full Transformer of an nmt config.ini; exits naming the option it cannot take."""

    def __init__(s, path):
        o = read_config(path)

        def need(key):
            if key not in o:
                sys.exit(f"torch_transformer: {path} has no '{key}' (pass the config.ini of an nmt model directory)")
            return o[key]

        for key, wanted in (("encoder", "transformer"), ("decoder", "transformer"), ("tie-embeddings", "true"),
                            ("share-embeddings", "true")):
            if need(key) != wanted:
                sys.exit(f"torch_transformer: {path}: {key} = {o[key]}; the peer is the full Transformer with one "
                         "embedding matrix (encoder and decoder transformer, tie-embeddings and share-embeddings true)")
        s.d, s.heads = int(need("embedding-size")), int(need("heads"))
        s.layers = int(need("layers"))
        s.decoder_layers = int(need("decoder-layers")) or s.layers
        s.ff = int(need("ff-size"))
        s.decoder_ff = int(need("decoder-ff-size")) or s.ff
        s.dropout, s.smoothing = float(need("dropout")), float(need("label-smoothing"))
        s.lr, s.clip = float(need("lr")), float(need("clip-norm"))
        s.batch_tokens, s.max_length = int(need("batch-tokens")), int(need("max-length"))


class Transformer(nn.Module):
    def __init__(s, vocab, shape):
        super().__init__()
        d, drop = shape.d, shape.dropout
        s.d = d
        s.emb = nn.Embedding(vocab, d, padding_idx=PAD)
        nn.init.normal_(s.emb.weight, std=d ** -0.5)
        pe = torch.zeros(1024, d)
        pos = torch.arange(0, 1024).unsqueeze(1)
        div = torch.exp(torch.arange(0, d, 2) * -(math.log(10000.0) / d))
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        s.register_buffer("pe", pe)
        encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(d, shape.heads, shape.ff, drop, batch_first=True, norm_first=True),
            shape.layers, nn.LayerNorm(d))
        decoder = nn.TransformerDecoder(
            nn.TransformerDecoderLayer(d, shape.heads, shape.decoder_ff, drop, batch_first=True, norm_first=True),
            shape.decoder_layers, nn.LayerNorm(d))
        s.net = nn.Transformer(d, shape.heads, custom_encoder=encoder, custom_decoder=decoder, batch_first=True,
                               norm_first=True)
        s.drop = nn.Dropout(drop)

    def embed(s, x):
        return s.drop(s.emb(x) * math.sqrt(s.d) + s.pe[: x.size(1)])

    def forward(s, x, y):
        causal = torch.triu(torch.full((y.size(1), y.size(1)), float("-inf")), diagonal=1)
        h = s.net(s.embed(x), s.embed(y), tgt_mask=causal, src_key_padding_mask=x == PAD,
                  tgt_key_padding_mask=y == PAD, memory_key_padding_mask=x == PAD)
        return h @ s.emb.weight.t()  # the output layer is the embedding matrix


def read_pairs(data, sp, max_length):
    with open(os.path.join(data, "train.de"), encoding="utf-8") as f:
        src = [l.rstrip("\n") for l in f]
    with open(os.path.join(data, "train.en"), encoding="utf-8") as f:
        tgt = [l.rstrip("\n") for l in f]
    pairs = [(sp.encode(a), sp.encode(b)) for a, b in zip(src, tgt)]
    fits = lambda n: 0 < n and (max_length == 0 or n <= max_length)  # max-length 0: no limit
    return [p for p in pairs if fits(len(p[0])) and fits(len(p[1]))]


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
    p.add_argument("--config", required=True, help="the config.ini of nmt's model directory: the shape and options")
    p.add_argument("--bpe", required=True, help="nmt's joint bpe.model")
    p.add_argument("--data", required=True)
    p.add_argument("--steps", type=int, default=60, help="timed steps, after as many untimed ones")
    p.add_argument("--threads", type=int, default=1, help="PyTorch's intra-op threads")
    p.add_argument("--precision", choices=["fp32", "bf16"], default="fp32", help="bf16: CPU autocast")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    random.seed(1)
    torch.manual_seed(1)
    sp = spm.SentencePieceProcessor(model_file=a.bpe)
    shape = Shape(a.config)
    pairs = read_pairs(a.data, sp, shape.max_length)
    model = Transformer(sp.get_piece_size(), shape)
    opt = torch.optim.Adam(model.parameters(), lr=shape.lr, betas=(0.9, 0.98), eps=1e-9)
    plan = batches(pairs, shape.batch_tokens)
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
                               label_smoothing=shape.smoothing)
        opt.zero_grad()
        loss.backward()
        if shape.clip > 0:
            nn.utils.clip_grad_norm_(model.parameters(), shape.clip)
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
