#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct nmt_spm_model;

namespace nmt {

// A trained SentencePiece BPE model: text <-> ids and pieces. Encoding and decoding are
// const and safe to call from several threads at once. Special ids: see SpecialIds.h.
class BpeModel {
 public:
  // Loads PREFIX.model; throws BpeError naming the file if it is missing or not a model.
  explicit BpeModel(const std::string& modelPath);

  const std::string& path() const { return path_; }
  int vocabSize() const;

  std::vector<int> encodeIds(std::string_view text) const;
  std::vector<std::string> encodePieces(std::string_view text) const;
  std::string decodeIds(const std::vector<int>& ids) const;
  std::string decodePieces(const std::vector<std::string>& pieces) const;

  // Throws BpeError for an id outside [0, vocabSize()).
  std::string idToPiece(int id) const;
  // The unknown id for a piece not in the vocabulary.
  int pieceToId(std::string_view piece) const;

 private:
  std::string path_;
  std::shared_ptr<nmt_spm_model> model_;
};

}  // namespace nmt
