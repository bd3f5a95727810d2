#include "TestSupport.h"
#include "data/ModelDirectory.h"
#include "train/CheckpointAveraging.h"
#include "util/FileSystem.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

using namespace nmt;
using nmt::test::errorOf;

namespace {

ModelConfig tinyTransformer() {
  ModelConfig c;
  c.encoder = c.decoder = "transformer";
  c.sourceVocab = c.targetVocab = 12;
  c.embeddingSize = 8;
  c.heads = 2;
  c.feedForwardSize = 16;
  c.layers = 1;
  c.shareEmbeddings = c.tieTargetEmbeddings = true;
  return c;
}

Seq2Seq seededModel(const ModelConfig& config, int seed) {
  torch::manual_seed(seed);
  Seq2Seq model(config);
  model->initialize();
  return model;
}

}  // namespace

TEST_CASE("keepValidatedWeights keeps the last N validations' weights, oldest removed first") {
  test::TempDir dir;
  const ModelDirectory model(dir.path());
  auto m = seededModel(tinyTransformer(), 1);
  keepValidatedWeights(m, model, 200, 0);  // 0: keeps nothing
  CHECK(model.keptCheckpoints().empty());
  for (int64_t step : {200, 400, 600, 800, 1000}) keepValidatedWeights(m, model, step, 3);
  CHECK(model.keptCheckpoints() ==
        std::vector<std::string>{dir.file("kept/step-00000600.pt"), dir.file("kept/step-00000800.pt"),
                                 dir.file("kept/step-00001000.pt")});
  CHECK(loadModel(model.kept(1000), c10::Device(c10::kCPU))->config().toText() == tinyTransformer().toText());
  // weights already saved (best.pt) are copied, byte for byte, not saved again: bytes after the
  // archive's end, which saving the model would not write, come along
  saveModel(m, model.best());
  const std::string saved = test::readFile(model.best());
  test::writeFile(model.best(), saved + "\nbytes only a copy keeps\n");
  keepValidatedWeights(m, model, 1200, 3, model.best());
  CHECK(test::readFile(model.kept(1200)) == saved + "\nbytes only a copy keeps\n");
  CHECK(model.keptCheckpoints().size() == 3);
  // without savedAs, the model is saved: as saveModel writes it
  keepValidatedWeights(m, model, 1400, 3);
  CHECK(test::readFile(model.kept(1400)) == saved);
}

TEST_CASE("averageModels takes the parameter-wise mean, and refuses other architectures") {
  test::TempDir dir;
  const auto config = tinyTransformer();
  std::vector<std::string> paths;
  std::vector<Seq2Seq> models;
  for (int seed : {1, 2, 3}) {
    models.push_back(seededModel(config, seed));
    paths.push_back(dir.file("m" + std::to_string(seed) + ".pt"));
    saveModel(models.back(), paths.back());
  }
  auto average = averageModels(paths);
  CHECK(average->config().toText() == config.toText());
  const auto named = average->named_parameters();
  for (const auto& p : named) {
    INFO(p.key());
    const auto expected = (models[0]->named_parameters()[p.key()] + models[1]->named_parameters()[p.key()] +
                           models[2]->named_parameters()[p.key()]) / 3.0;
    CHECK(torch::allclose(p.value(), expected, 1e-6, 1e-6));
  }
  // one model averages to itself
  CHECK(torch::equal(averageModels({paths[0]})->parameters()[0], models[0]->parameters()[0]));

  auto wider = config;
  wider.feedForwardSize = 32;
  auto other = seededModel(wider, 4);
  saveModel(other, dir.file("wider.pt"));
  CHECK(errorOf([&] { averageModels({paths[0], dir.file("wider.pt")}); }) ==
        "cannot average " + dir.file("wider.pt") + " with " + paths[0] +
            ": the architectures differ (decoder-ff-size: 16 -> 32; ff-size: 16 -> 32)");
  CHECK(errorOf([] { averageModels({}); }) == "no models to average");
}
