#include "model/Seq2Seq.h"

#include "model/ArchiveValues.h"
#include "model/Layers.h"
#include "model/ModelFactory.h"

#include "tokenization/SpecialIds.h"
#include "util/FileSystem.h"
#include "util/InputError.h"
#include "util/OutputFile.h"
#include "util/ZipChecksums.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

namespace nmt {

Seq2SeqImpl::Seq2SeqImpl(const ModelConfig& config) : config_(config) {
  auto made = makeEncoderDecoder(config_, *this);
  encoder_ = std::move(made.encoder);
  decoder_ = std::move(made.decoder);
}

EncoderOutput Seq2SeqImpl::encode(const torch::Tensor& source, const torch::Tensor& lengths, const torch::Tensor& mask) {
  return encoder_->encode(source, lengths, mask);
}

DecoderOutput Seq2SeqImpl::forward(const Batch& batch, double teacherForcingRatio) {
  const auto encoded = encode(batch.source, batch.sourceLengths, batch.sourceMask);
  return teacherForced(batch.decoderInput(), encoded, teacherForcingRatio);
}

DecoderOutput Seq2SeqImpl::teacherForced(const torch::Tensor& targetInput, const EncoderOutput& encoded,
                                         double teacherForcingRatio) {
  return decoder_->teacherForced(targetInput, encoded, teacherForcingRatio);
}

DecoderMemory Seq2SeqImpl::prepareDecoder(const EncoderOutput& encoded) { return decoder_->prepare(encoded); }

DecoderState Seq2SeqImpl::initialDecoderState(const EncoderOutput& encoded) { return decoder_->initialState(encoded); }

DecoderStep Seq2SeqImpl::decodeStep(const torch::Tensor& previousTokens, const DecoderState& state,
                                    const DecoderMemory& memory, const OutputSlice* slice,
                                    const torch::Tensor& memoryRows) {
  return decoder_->step(previousTokens, state, memory, slice, memoryRows);
}

c10::Device Seq2SeqImpl::device() const { return parameters().front().device(); }

int64_t Seq2SeqImpl::parameterCount() const {
  int64_t n = 0;
  for (const auto& p : parameters()) n += p.numel();
  return n;
}

double Seq2SeqImpl::embeddingStd(const std::string& name) const {
  const double small = 1.0 / std::sqrt(static_cast<double>(config_.embeddingSize));
  const bool source = name.rfind("encoder.", 0) == 0;
  if (source) return encoder_->scalesEmbeddings() ? small : 1.0;
  return config_.tieTargetEmbeddings || decoder_->scalesEmbeddings() ? small : 1.0;
}

void Seq2SeqImpl::initialize() {
  torch::NoGradGuard noGrad;
  for (auto& named : named_parameters()) {
    const std::string& name = named.key();
    auto& p = named.value();
    if (name.find("embedding") != std::string::npos) {
      p.normal_(0.0, embeddingStd(name));
      p[SpecialIds::kPad].zero_();
    } else if (name.find("norm") != std::string::npos) {
      name.find("bias") != std::string::npos ? p.zero_() : p.fill_(1.0);  // LayerNorm: identity
    } else if (name.find("bias") != std::string::npos) {
      p.zero_();
    } else if (name.find("weight_hh") != std::string::npos) {
      // one orthogonal block per gate
      for (auto& block : p.chunk(p.size(0) / p.size(1), 0)) torch::nn::init::orthogonal_(block);
    } else if (p.dim() >= 2) {
      torch::nn::init::xavier_uniform_(p);
    }
  }
}

const char* const kAveragedWeightsPrefix = "averaged/";

std::string weightKey(const std::string& name) {
  std::string key = name;
  for (auto& c : key)
    if (c == '.') c = '/';
  return key;
}

void writeModel(torch::serialize::OutputArchive& archive, Seq2Seq& model) {
  archive.write("config", c10::IValue(model->config().toText()));
  for (const auto& p : model->named_parameters()) archive.write(weightKey(p.key()), p.value().detach().cpu());
}

void saveModel(Seq2Seq& model, const std::string& path) {
  torch::serialize::OutputArchive archive;
  writeModel(archive, model);
  saveArchive(archive, path);
}

void saveArchive(torch::serialize::OutputArchive& archive, const std::string& path) {
  OutputFile file(path);
  try {
    archive.save_to(file.stream());  // a failed write is not seen here (OutputFile): commit() reports it
  } catch (const c10::Error& e) {
    throw WriteError("cannot write " + path + ": " + e.what_without_backtrace());
  }
  file.commit();
}

namespace {

// MissingFileError or InputError naming `path` when it is not there or its records fail their CRC-32s.
void checkArchive(const std::string& path) {
  if (!files::exists(path)) throw MissingFileError("cannot open model " + path + ": No such file or directory");
  if (const auto damage = zipArchiveDamage(path); !damage.empty())
    throw InputError("cannot load model " + path + ": " + damage);
}

}  // namespace

void openArchive(torch::serialize::InputArchive& archive, const std::string& path) {
  checkArchive(path);
  try {
    archive.load_from(path, torch::kCPU);
  } catch (const c10::Error&) {
    throw InputError("cannot load model " + path + ": not a model file or corrupt");
  }
}

namespace {

// The model a config text and its weights make; `readWeight(key, tensor)` finds a saved tensor by
// its archive key. `path` names the file in errors.
template <class ReadWeight>
Seq2Seq rebuildModel(const std::optional<std::string>& configText, const ReadWeight& readWeight,
                     const std::string& path, const c10::Device& device) {
  if (!configText) throw InputError("cannot load model " + path + ": it holds no model config");
  ModelConfig config;
  try {
    config = ModelConfig::fromText(*configText);
  } catch (const InputError& e) {
    throw InputError("cannot load model " + path + ": " + e.what());
  }
  Seq2Seq model{nullptr};
  {
    LoadingWeights unfilled;  // every parameter is assigned below, or the model is not returned
    model = Seq2Seq(config);
  }
  torch::NoGradGuard noGrad;
  for (auto& p : model->named_parameters()) {
    torch::Tensor saved;
    if (!readWeight(weightKey(p.key()), saved))
      throw InputError("cannot load model " + path + ": weights for " + p.key() + " are missing");
    if (saved.sizes() != p.value().sizes())
      throw InputError("cannot load model " + path + ": " + p.key() + " has shape " + c10::str(saved.sizes()) +
                       " but the config needs " + c10::str(p.value().sizes()));
    // the archive's own tensor where it is laid out as the parameter is (no copy), else its values
    if (saved.scalar_type() == p.value().scalar_type() && saved.is_contiguous())
      p.value().set_(saved);
    else
      p.value().copy_(saved);
  }
  model->to(device);
  return model;
}

}  // namespace

Seq2Seq readModel(torch::serialize::InputArchive& archive, const std::string& path, const c10::Device& device) {
  c10::IValue configValue;
  std::optional<std::string> configText;
  if (archive.try_read("config", configValue) && configValue.isString()) configText = configValue.toStringRef();
  return rebuildModel(
      configText, [&](const std::string& key, torch::Tensor& saved) { return archive.try_read(key, saved); }, path,
      device);
}

Seq2Seq loadModel(const std::string& path, const c10::Device& device) {
  checkArchive(path);
  std::unique_ptr<ArchiveValues> values;
  try {
    values = std::make_unique<ArchiveValues>(path);
  } catch (const c10::Error&) {
    throw InputError("cannot load model " + path + ": not a model file or corrupt");
  }
  std::optional<std::string> configText;
  if (std::string text; values->tryRead("config", text)) configText = std::move(text);
  // a checkpoint's average when it has one: every weight from there (the first one decides)
  std::optional<bool> averaged;
  return rebuildModel(
      configText,
      [&](const std::string& key, torch::Tensor& saved) {
        if (!averaged) averaged = values->tryRead(kAveragedWeightsPrefix + key, saved);  // read when there
        else if (*averaged) return values->tryRead(kAveragedWeightsPrefix + key, saved);
        return *averaged || values->tryRead(key, saved);
      },
      path, device);
}

}  // namespace nmt
