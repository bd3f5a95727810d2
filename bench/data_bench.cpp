// Prints the data pipeline's figures on a parallel corpus: BPE training time, encoding
// throughput, and the padding of length-bucketed against fixed-size batches.
//   nmt-bench-data --data ../shared/data/multi30k [--src de --tgt en --vocab-size 8000 --batch-tokens 4096]
#include "common/AppMain.h"
#include "data/EncodedCorpus.h"
#include "data/LengthBucketBatcher.h"
#include "data/ParallelCorpus.h"
#include "tokenization/BpeModel.h"
#include "tokenization/BpeTrainer.h"
#include "util/FileSystem.h"
#include "util/Stopwatch.h"

#include <fmt/core.h>

#include <cstdlib>

namespace po = boost::program_options;
using namespace nmt;

int main(int argc, char* argv[]) {
  app::runMain("nmt-bench-data", [&] {
    std::string data, src, tgt;
    int vocab;
    std::size_t batchTokens;
    po::options_description desc("Benchmark options");
    desc.add_options()
        ("data", po::value(&data)->required(), "folder with train.SRC and train.TGT")
        ("src", po::value(&src)->default_value("de"), "source language suffix")
        ("tgt", po::value(&tgt)->default_value("en"), "target language suffix")
        ("vocab-size", po::value(&vocab)->default_value(8000), "joint BPE vocabulary")
        ("batch-tokens", po::value(&batchTokens)->default_value(4096), "token budget per batch");
    po::variables_map vm;
    if (!app::parseCommandLine("nmt-bench-data", "nmt-bench-data --data DIR", argc, argv, desc, {}, vm)) return 0;

    const std::string srcFile = data + "/train." + src, tgtFile = data + "/train." + tgt;
    char tmpl[] = "/tmp/nmt-bench-XXXXXX";
    const std::string dir = mkdtemp(tmpl);

    Stopwatch watch;
    const auto corpus = ParallelCorpus::fromFiles(srcFile, tgtFile);
    fmt::print("corpus: {} pairs read and validated in {:.2f} s\n", corpus.pairs().size(), watch.seconds());

    BpeTrainOptions opts;
    opts.inputs = {srcFile, tgtFile};
    opts.modelPrefix = dir + "/bpe";
    opts.vocabSize = vocab;
    watch.restart();
    trainBpeModel(opts);
    fmt::print("BPE training: {} pieces on {}+{} ({} lines) in {:.1f} s\n", vocab, src, tgt,
               2 * corpus.pairs().size(), watch.seconds());

    const BpeModel bpe(opts.modelPrefix + ".model");
    for (unsigned threads : {1u, 2u}) {
      watch.restart();
      const auto encoded = encodeCorpus(corpus, bpe, bpe, 0, threads);
      const double s = watch.seconds();
      fmt::print("BPE encoding ({} thread{}): {:.0f} sentences/s ({} sentences in {:.2f} s)\n", threads,
                 threads > 1 ? "s" : "", 2.0 * encoded.pairs.size() / s, 2 * encoded.pairs.size(), s);
    }

    const auto encoded = encodeCorpus(corpus, bpe, bpe, 0, 2);
    const auto lengths = batchLengths(encoded.pairs);
    LengthBucketBatcher batcher(lengths, {batchTokens, 0, 1, true});
    const auto bucketed = batcher.epoch(0);
    const auto bucketStats = measurePadding(lengths, bucketed);
    const std::size_t meanBatch = (encoded.pairs.size() + bucketed.size() - 1) / bucketed.size();
    const auto fixedStats = measurePadding(lengths, fixedSizeBatches(lengths.size(), meanBatch));
    fmt::print("padding, length-bucketed (--batch-tokens {}): {:.1f}% of cells, {:.1f}% of target cells ({} batches, "
               "{} sentences/batch on average)\n",
               batchTokens, 100.0 * bucketStats.paddingRatio(), 100.0 * bucketStats.targetPaddingRatio(), bucketed.size(),
               meanBatch);
    fmt::print("padding, fixed-size batches of {} in corpus order: {:.1f}% of cells, {:.1f}% of target cells\n", meanBatch,
               100.0 * fixedStats.paddingRatio(), 100.0 * fixedStats.targetPaddingRatio());
    files::removeAll(dir);
    return 0;
  });
}
