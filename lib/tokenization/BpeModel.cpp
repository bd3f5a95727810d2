#include "BpeModel.h"

#include "BpeError.h"
#include "SpmBridgeLibrary.h"

#include <fstream>

namespace nmt {
namespace {

// Owns a buffer the bridge allocated.
struct BridgeBuffer {
  void* data = nullptr;
  ~BridgeBuffer() { SpmBridgeLibrary::get().free(data); }
};

[[noreturn]] void throwBridgeError(const std::string& context, char* error) {
  BridgeBuffer owned{error};
  throw BpeError(context + ": " + (error ? error : "unknown error"));
}

}  // namespace

BpeModel::BpeModel(const std::string& modelPath) : path_(modelPath) {
  const auto& bridge = SpmBridgeLibrary::get();
  if (!std::ifstream(modelPath).good()) throw BpeError("cannot open BPE model " + modelPath);
  nmt_spm_model* raw = nullptr;
  char* error = nullptr;
  if (bridge.load(modelPath.c_str(), &raw, &error) != 0) {
    BridgeBuffer owned{error};  // SentencePiece's own words ("could not parse ModelProto") say no more
    throw BpeError("cannot load BPE model " + modelPath + ": damaged or not a SentencePiece model");
  }
  model_.reset(raw, bridge.destroy);
}

int BpeModel::vocabSize() const { return SpmBridgeLibrary::get().vocabSize(model_.get()); }

std::vector<int> BpeModel::encodeIds(std::string_view text) const {
  const auto& bridge = SpmBridgeLibrary::get();
  int* ids = nullptr;
  size_t count = 0;
  char* error = nullptr;
  if (bridge.encodeIds(model_.get(), text.data(), text.size(), &ids, &count, &error) != 0)
    throwBridgeError("BPE encoding failed", error);
  BridgeBuffer owned{ids};
  return std::vector<int>(ids, ids + count);
}

std::vector<std::string> BpeModel::encodePieces(std::string_view text) const {
  const auto& bridge = SpmBridgeLibrary::get();
  char* pieces = nullptr;
  size_t count = 0;
  char* error = nullptr;
  if (bridge.encodePieces(model_.get(), text.data(), text.size(), &pieces, &count, &error) != 0)
    throwBridgeError("BPE encoding failed", error);
  BridgeBuffer owned{pieces};
  std::vector<std::string> out;
  out.reserve(count);
  const char* p = pieces;
  for (size_t i = 0; i < count; ++i) {
    out.emplace_back(p);
    p += out.back().size() + 1;
  }
  return out;
}

std::string BpeModel::decodeIds(const std::vector<int>& ids) const {
  const auto& bridge = SpmBridgeLibrary::get();
  const int vocab = vocabSize();
  for (int id : ids)
    if (id < 0 || id >= vocab)
      throw BpeError("cannot decode id " + std::to_string(id) + ": vocabulary has " + std::to_string(vocab) + " pieces");
  char* text = nullptr;
  size_t length = 0;
  char* error = nullptr;
  if (bridge.decodeIds(model_.get(), ids.data(), ids.size(), &text, &length, &error) != 0)
    throwBridgeError("BPE decoding failed", error);
  BridgeBuffer owned{text};
  return std::string(text, length);
}

std::string BpeModel::decodePieces(const std::vector<std::string>& pieces) const {
  const auto& bridge = SpmBridgeLibrary::get();
  std::string joined;
  for (const auto& p : pieces) {
    joined += p;
    joined.push_back('\0');
  }
  char* text = nullptr;
  size_t length = 0;
  char* error = nullptr;
  if (bridge.decodePieces(model_.get(), joined.data(), pieces.size(), &text, &length, &error) != 0)
    throwBridgeError("BPE decoding failed", error);
  BridgeBuffer owned{text};
  return std::string(text, length);
}

std::string BpeModel::idToPiece(int id) const {
  char* piece = nullptr;
  if (SpmBridgeLibrary::get().idToPiece(model_.get(), id, &piece) != 0)
    throw BpeError("piece id " + std::to_string(id) + " out of range [0, " + std::to_string(vocabSize()) + ")");
  BridgeBuffer owned{piece};
  return std::string(piece);
}

int BpeModel::pieceToId(std::string_view piece) const {
  return SpmBridgeLibrary::get().pieceToId(model_.get(), piece.data(), piece.size());
}

}  // namespace nmt
