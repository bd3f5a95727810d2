#include "tokenization/TextCodec.h"

namespace nmt {

SourceText TextCodec::source(const std::string& sentence) const {
  // pieces as written (an unknown character shows itself), their ids from the same encoding
  SourceText out;
  if (sourceWords_)
    sourceWords_->encode(sentence, out.pieces, out.ids);
  else
    SourceWordCache::encodeWhole(source_, sentence, out.pieces, out.ids);
  out.inputPieces = out.pieces.size();
  if (maxSourcePieces_ > 0 && out.pieces.size() > maxSourcePieces_) {
    out.pieces.resize(maxSourcePieces_);
    out.ids.resize(maxSourcePieces_);
    out.truncated = true;
  }
  out.pieces.push_back("</s>");
  return out;
}

TargetText TextCodec::target(std::vector<int> ids, bool finished) const {
  TargetText out;
  out.text = target_.decodeIds(ids);
  for (int id : ids) out.pieces.push_back(target_.idToPiece(id));
  if (finished) out.pieces.push_back("</s>");
  out.ids = std::move(ids);
  return out;
}

TargetText TextCodec::reference(const std::string& text) const {
  TargetText out;
  out.text = text;
  out.ids = target_.encodeIds(text);
  out.pieces = target_.encodePieces(text);  // as written: an unknown character shows itself
  out.pieces.push_back("</s>");
  return out;
}

}  // namespace nmt
