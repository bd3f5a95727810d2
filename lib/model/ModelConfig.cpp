#include "model/ModelConfig.h"

#include "util/InputError.h"

#include <sstream>

namespace nmt {
namespace {

std::map<std::string, std::string> asMap(const ModelConfig& c) {
  return {{"encoder", c.encoder},
          {"decoder", c.decoder},
          {"cell", c.cell},
          {"sourceVocab", std::to_string(c.sourceVocab)},
          {"targetVocab", std::to_string(c.targetVocab)},
          {"embeddingSize", std::to_string(c.embeddingSize)},
          {"hiddenSize", std::to_string(c.hiddenSize)},
          {"layers", std::to_string(c.layers)},
          {"decoderLayers", std::to_string(c.decoderDepth())},
          {"bidirectional", c.bidirectional ? "true" : "false"},
          {"heads", std::to_string(c.heads)},
          {"feedForwardSize", std::to_string(c.feedForwardSize)},
          {"dropout", std::to_string(c.dropout)},
          {"tieTargetEmbeddings", c.tieTargetEmbeddings ? "true" : "false"},
          {"shareEmbeddings", c.shareEmbeddings ? "true" : "false"}};
}

int64_t toInt(const std::string& key, const std::string& value) {
  std::size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(value, &used);
  } catch (const std::exception&) {
  }
  if (used == 0 || used != value.size()) throw InputError("model config: " + key + " must be an integer, not '" + value + "'");
  return v;
}

bool toBool(const std::string& key, const std::string& value) {
  if (value == "true") return true;
  if (value == "false") return false;
  throw InputError("model config: " + key + " must be true or false, not '" + value + "'");
}

}  // namespace

std::string ModelConfig::toText() const {
  std::string out;
  for (const auto& [k, v] : asMap(*this)) out += k + "=" + v + "\n";
  return out;
}

ModelConfig ModelConfig::fromText(const std::string& text) {
  ModelConfig c;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) throw InputError("model config: malformed line '" + line + "'");
    const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "encoder") c.encoder = value;
    else if (key == "decoder") c.decoder = value;
    else if (key == "cell") c.cell = value;
    else if (key == "sourceVocab") c.sourceVocab = toInt(key, value);
    else if (key == "targetVocab") c.targetVocab = toInt(key, value);
    else if (key == "embeddingSize") c.embeddingSize = toInt(key, value);
    else if (key == "hiddenSize") c.hiddenSize = toInt(key, value);
    else if (key == "layers") c.layers = toInt(key, value);
    else if (key == "decoderLayers") c.decoderLayers = toInt(key, value);
    else if (key == "bidirectional") c.bidirectional = toBool(key, value);
    else if (key == "heads") c.heads = toInt(key, value);
    else if (key == "feedForwardSize") c.feedForwardSize = toInt(key, value);
    else if (key == "dropout") c.dropout = std::stod(value);
    else if (key == "tieTargetEmbeddings") c.tieTargetEmbeddings = toBool(key, value);
    else if (key == "shareEmbeddings") c.shareEmbeddings = toBool(key, value);
    else throw InputError("model config: unknown key '" + key + "'");
  }
  c.validate();
  return c;
}

bool ModelConfig::lstmCell() const { return cell == "lstm"; }

void ModelConfig::validate() const {
  auto positive = [](const char* name, int64_t v) {
    if (v <= 0) throw InputError(std::string("model config: ") + name + " must be positive, not " + std::to_string(v));
  };
  if (encoder != "rnn" && encoder != "transformer")
    throw InputError("model config: encoder must be rnn or transformer, not '" + encoder + "'");
  if (decoder != "rnn" && decoder != "transformer")
    throw InputError("model config: decoder must be rnn or transformer, not '" + decoder + "'");
  if (decoder == "transformer" && encoder != "transformer")
    throw InputError("model config: the transformer decoder needs the transformer encoder");
  if (shareEmbeddings && decoder != "transformer")
    throw InputError("model config: shared source and target embeddings need the transformer decoder");
  if (shareEmbeddings && sourceVocab != targetVocab)
    throw InputError("model config: shared embeddings need one joint vocabulary, but sourceVocab is " +
                     std::to_string(sourceVocab) + " and targetVocab " + std::to_string(targetVocab));
  if (cell != "gru" && cell != "lstm") throw InputError("model config: cell must be gru or lstm, not '" + cell + "'");
  positive("sourceVocab", sourceVocab);
  positive("targetVocab", targetVocab);
  positive("embeddingSize", embeddingSize);
  positive("hiddenSize", hiddenSize);
  positive("layers", layers);
  if (decoderLayers < 0) throw InputError("model config: decoderLayers must not be negative");
  if (encoder == "rnn" && decoderDepth() != layers)
    throw InputError("model config: the rnn encoder hands each decoder layer its own state, so decoderLayers (" +
                     std::to_string(decoderLayers) + ") must equal layers (" + std::to_string(layers) + ")");
  positive("heads", heads);
  positive("feedForwardSize", feedForwardSize);
  if (dropout < 0.0 || dropout >= 1.0) throw InputError("model config: dropout must be in [0, 1)");
  if (encoder == "transformer" && embeddingSize % heads != 0)
    throw InputError("model config: embeddingSize " + std::to_string(embeddingSize) + " is not divisible by heads " +
                     std::to_string(heads));
}

std::vector<std::string> ModelConfig::architectureDifferences(const ModelConfig& other) const {
  std::vector<std::string> out;
  const auto a = asMap(*this), b = asMap(other);
  for (const auto& [k, v] : a)
    if (k != "dropout" && b.at(k) != v) out.push_back(k + ": " + v + " -> " + b.at(k));
  return out;
}

}  // namespace nmt
