// The only translation unit that sees SentencePiece. Built as its own shared library.
#include "SpmBridge.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <unordered_map>
#include <vector>

struct nmt_spm_model {
  sentencepiece::SentencePieceProcessor processor;
};

namespace {

char* copyString(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out) {
    std::memcpy(out, s.data(), s.size());
    out[s.size()] = '\0';
  }
  return out;
}

int fail(char** error, const std::string& message) {
  if (error) *error = copyString(message);
  return 1;
}

// Runs `body`, turning a failed Status or an exception into the C error convention.
template <typename Body>
int guarded(char** error, Body&& body) {
  try {
    const sentencepiece::util::Status status = body();
    if (!status.ok()) return fail(error, status.ToString());
    return 0;
  } catch (const std::exception& e) {
    return fail(error, e.what());
  } catch (...) {
    return fail(error, "unknown error in SentencePiece");
  }
}

std::vector<std::string> splitPieces(const char* pieces, size_t count) {
  std::vector<std::string> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    out.emplace_back(pieces);
    pieces += out.back().size() + 1;
  }
  return out;
}

}  // namespace

extern "C" {

int nmt_spm_abi_version(void) { return NMT_SPM_BRIDGE_ABI; }

int nmt_spm_train(const char* const* keys, const char* const* values, size_t count,
                  unsigned seed, char** error) {
  return guarded(error, [&] {
    std::unordered_map<std::string, std::string> kwargs;
    for (size_t i = 0; i < count; ++i) kwargs[keys[i]] = values[i];
    sentencepiece::SetRandomGeneratorSeed(seed);
    return sentencepiece::SentencePieceTrainer::Train(kwargs);
  });
}

int nmt_spm_load(const char* path, nmt_spm_model** model, char** error) {
  *model = nullptr;
  auto owned = new (std::nothrow) nmt_spm_model;
  if (!owned) return fail(error, "out of memory");
  const int rc = guarded(error, [&] { return owned->processor.Load(path); });
  if (rc != 0) {
    delete owned;
    return rc;
  }
  *model = owned;
  return 0;
}

void nmt_spm_destroy(nmt_spm_model* model) { delete model; }

int nmt_spm_vocab_size(const nmt_spm_model* model) { return model->processor.GetPieceSize(); }

int nmt_spm_id_to_piece(const nmt_spm_model* model, int id, char** piece) {
  if (id < 0 || id >= model->processor.GetPieceSize()) return -1;
  *piece = copyString(model->processor.IdToPiece(id));
  return *piece ? 0 : -1;
}

int nmt_spm_piece_to_id(const nmt_spm_model* model, const char* piece, size_t length) {
  return model->processor.PieceToId(std::string(piece, length));
}

int nmt_spm_encode_ids(const nmt_spm_model* model, const char* text, size_t length, int** ids,
                       size_t* count, char** error) {
  *ids = nullptr;
  *count = 0;
  return guarded(error, [&] {
    std::vector<int> out;
    auto status = model->processor.Encode(std::string(text, length), &out);
    if (!status.ok()) return status;
    *ids = static_cast<int*>(std::malloc(sizeof(int) * (out.empty() ? 1 : out.size())));
    if (!*ids) return sentencepiece::util::Status(sentencepiece::util::StatusCode::kResourceExhausted, "out of memory");
    std::memcpy(*ids, out.data(), sizeof(int) * out.size());
    *count = out.size();
    return status;
  });
}

int nmt_spm_encode_pieces(const nmt_spm_model* model, const char* text, size_t length,
                          char** pieces, size_t* count, char** error) {
  *pieces = nullptr;
  *count = 0;
  return guarded(error, [&] {
    std::vector<std::string> out;
    auto status = model->processor.Encode(std::string(text, length), &out);
    if (!status.ok()) return status;
    std::string joined;
    for (const auto& p : out) {
      joined += p;
      joined.push_back('\0');
    }
    *pieces = static_cast<char*>(std::malloc(joined.empty() ? 1 : joined.size()));
    if (!*pieces) return sentencepiece::util::Status(sentencepiece::util::StatusCode::kResourceExhausted, "out of memory");
    std::memcpy(*pieces, joined.data(), joined.size());
    *count = out.size();
    return status;
  });
}

int nmt_spm_decode_ids(const nmt_spm_model* model, const int* ids, size_t count, char** text,
                       size_t* length, char** error) {
  *text = nullptr;
  *length = 0;
  return guarded(error, [&] {
    std::string out;
    auto status = model->processor.Decode(std::vector<int>(ids, ids + count), &out);
    if (!status.ok()) return status;
    *text = copyString(out);
    *length = out.size();
    return status;
  });
}

int nmt_spm_decode_pieces(const nmt_spm_model* model, const char* pieces, size_t count, char** text,
                          size_t* length, char** error) {
  *text = nullptr;
  *length = 0;
  return guarded(error, [&] {
    std::string out;
    auto status = model->processor.Decode(splitPieces(pieces, count), &out);
    if (!status.ok()) return status;
    *text = copyString(out);
    *length = out.size();
    return status;
  });
}

void nmt_spm_free(void* buffer) { std::free(buffer); }

}  // extern "C"
