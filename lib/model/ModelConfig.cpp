#include "model/ModelConfig.h"

#include "util/InputError.h"

#include <sstream>

namespace nmt {
namespace {

std::string valueText(const std::string& v) { return v; }
std::string valueText(int64_t v) { return std::to_string(v); }
std::string valueText(bool v) { return v ? "true" : "false"; }
std::string valueText(double v) { return std::to_string(v); }

std::map<std::string, std::string> asMap(const ModelConfig& c) {
  std::map<std::string, std::string> out;
  c.forEachField([&](const char* key, const char*, const auto& field) { out[key] = valueText(field); });
  // 0 ("as the encoder") saved as what it means
  out["decoder-layers"] = valueText(c.decoderDepth());
  out["decoder-ff-size"] = valueText(c.decoderFeedForward());
  return out;
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

void readValue(const std::string&, const std::string& value, std::string& field) { field = value; }
void readValue(const std::string& key, const std::string& value, int64_t& field) { field = toInt(key, value); }
void readValue(const std::string& key, const std::string& value, bool& field) { field = toBool(key, value); }
void readValue(const std::string&, const std::string& value, double& field) { field = std::stod(value); }

// Models saved before the keys named each value by its field (hiddenSize=512).
bool readOldKey(ModelConfig& c, const std::string& key, const std::string& value) {
#define NMT_MODEL_CONFIG_OLD_KEY(type, name, value_, key_, help) \
  if (key == #name) {                                            \
    readValue(key, value, c.name);                               \
    return true;                                                 \
  }
  NMT_MODEL_CONFIG(NMT_MODEL_CONFIG_OLD_KEY)
#undef NMT_MODEL_CONFIG_OLD_KEY
  return false;
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
    bool known = false;
    c.forEachField([&](const char* name, const char*, auto& field) {
      if (key == name) readValue(key, value, field), known = true;
    });
    if (!known && !readOldKey(c, key, value)) throw InputError("model config: unknown key '" + key + "'");
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
    throw InputError("model config: shared embeddings need one joint vocabulary, but source-vocab is " +
                     std::to_string(sourceVocab) + " and target-vocab " + std::to_string(targetVocab));
  if (cell != "gru" && cell != "lstm") throw InputError("model config: cell must be gru or lstm, not '" + cell + "'");
  positive("source-vocab", sourceVocab);
  positive("target-vocab", targetVocab);
  positive("embedding-size", embeddingSize);
  positive("hidden-size", hiddenSize);
  positive("layers", layers);
  if (decoderLayers < 0) throw InputError("model config: decoder-layers must not be negative");
  if (encoder == "rnn" && decoderDepth() != layers)
    throw InputError("model config: the rnn encoder hands each decoder layer its own state, so decoder-layers (" +
                     std::to_string(decoderLayers) + ") must equal layers (" + std::to_string(layers) + ")");
  positive("heads", heads);
  positive("ff-size", feedForwardSize);
  if (decoderFeedForwardSize < 0) throw InputError("model config: decoder-ff-size must not be negative");
  if (!(dropout >= 0.0 && dropout < 1.0)) throw InputError("model config: dropout must be in [0, 1)");  // NaN too
  if (encoder == "transformer" && embeddingSize % heads != 0)
    throw InputError("model config: embedding-size " + std::to_string(embeddingSize) + " is not divisible by heads " +
                     std::to_string(heads));
}

std::string ModelConfig::architectureDifferences(const ModelConfig& other) const {
  std::string out;
  const auto a = asMap(*this), b = asMap(other);
  for (const auto& [k, v] : a)
    if (k != "dropout" && b.at(k) != v) out += (out.empty() ? "" : "; ") + k + ": " + v + " -> " + b.at(k);
  return out;
}

}  // namespace nmt
