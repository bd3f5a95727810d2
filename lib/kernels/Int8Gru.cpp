#include "kernels/Int8Gru.h"

#include <ATen/ATen.h>

namespace nmt {

Int8Gru::Int8Gru(const std::vector<std::vector<at::Tensor>>& weights, int64_t layers, bool bidirectional)
    : layers_(layers), dirs_(bidirectional ? 2 : 1), hidden_(weights.at(0).at(1).size(1)) {
  TORCH_CHECK(static_cast<int64_t>(weights.size()) == layers_ * dirs_, "Int8Gru: ", weights.size(),
              " sets of weights for ", layers_, " layers of ", dirs_, " directions");
  for (const auto& w : weights) {
    TORCH_CHECK(w.size() == 4, "Int8Gru: weight_ih, weight_hh, bias_ih and bias_hh for each direction");
    directions_.push_back({std::make_shared<Int8Linear>(w[0], w[2]), std::make_shared<Int8Linear>(w[1], w[3])});
  }
}

std::pair<at::Tensor, at::Tensor> Int8Gru::operator()(const at::Tensor& input, const at::Tensor& lengths) const {
  const int64_t B = input.size(0), S = input.size(1), H = hidden_;
  // alive[t]: [B, 1], whether position t is within each row; dead[t] its opposite
  const auto alive = at::arange(S, lengths.options()).view({S, 1, 1}).lt(lengths.view({1, B, 1})).to(input.device());
  const auto dead = alive.logical_not();
  std::vector<at::Tensor> last;
  at::Tensor x = input;
  for (int64_t layer = 0; layer < layers_; ++layer) {
    auto out = at::zeros({B, S, dirs_ * H}, input.options());
    for (int64_t dir = 0; dir < dirs_; ++dir) {
      const auto& d = directions_[layer * dirs_ + dir];
      const auto projected = (*d.input)(x);  // [B, S, 3H]: every position's input gates at once
      auto h = at::zeros({B, H}, input.options());
      for (int64_t i = 0; i < S; ++i) {
        const int64_t t = dir == 0 ? i : S - 1 - i;  // backward: a row starts from zeros at its own last position
        const auto gi = projected.select(1, t);
        const auto gh = (*d.hidden)(h);
        const auto rz = at::sigmoid(gi.narrow(1, 0, 2 * H) + gh.narrow(1, 0, 2 * H));
        const auto r = rz.narrow(1, 0, H), z = rz.narrow(1, H, H);
        const auto n = at::tanh(gi.narrow(1, 2 * H, H) + r * gh.narrow(1, 2 * H, H));
        const auto stepped = n + z * (h - n);  // (1 - z) n + z h
        h = at::where(alive[t], stepped, h);   // past its length a row keeps its state
        out.select(1, t).narrow(1, dir * H, H).copy_(h.masked_fill(dead[t], 0.0));
      }
      last.push_back(h);
    }
    x = out;
  }
  return {x, at::stack(last)};
}

}  // namespace nmt
