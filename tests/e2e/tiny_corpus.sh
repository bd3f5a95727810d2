# A tiny learnable translation task: each source word has one target word, order kept.
# make_tiny_corpus DIR writes DIR/train.{src,tgt} (600 pairs) and DIR/valid.{src,tgt} (40).
# The random numbers are the awk script's own (Park and Miller's generator, exact in doubles): awk's
# rand() differs between awks (mawk, gawk), and tests count batches of this corpus.
make_tiny_corpus() {
  local dir=$1
  awk -v dir="$dir" 'function uniform() { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
  BEGIN {
    split("der die das Mann Frau Hund Katze sieht läuft spielt mit im Park Ball groß klein rot blau schnell heute", src, " ")
    split("the the the man woman dog cat sees runs plays with in park ball big small red blue fast today", tgt, " ")
    n = 20; seed = 7
    for (set = 0; set < 2; set++) {
      lines = set == 0 ? 600 : 40; name = set == 0 ? "train" : "valid"
      for (i = 0; i < lines; i++) {
        len = 3 + int(uniform() * 6); s = ""; t = ""
        for (k = 0; k < len; k++) { w = 1 + int(uniform() * n); s = s (k ? " " : "") src[w]; t = t (k ? " " : "") tgt[w] }
        print s > (dir "/" name ".src"); print t > (dir "/" name ".tgt")
      }
    }
  }'
}

# nmt-train's data options for the corpus, from the folder make_tiny_corpus wrote it to.
TINY_DATA=(--train-src train.src --train-tgt train.tgt --valid-src valid.src --valid-tgt valid.tgt)

# Options for a model that learns the tiny task in a few seconds.
TINY_MODEL=(--vocab-size 60 --embedding-size 32 --hidden-size 64 --dropout 0.1 --batch-tokens 600 --lr 0.003)
