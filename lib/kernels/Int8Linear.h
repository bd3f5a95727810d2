#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <memory>
#include <utility>
#include <string>
#include <vector>

namespace nmt {

// How x is quantized for an int8 product. Without VNNI (AVX2, AVX-512 before Cascade Lake) the
// int8 kernels multiply u8 x s8 with vpmaddubsw, which adds each pair of products into 16 bits
// and saturates (255 x 127 x 2 > 32,767): 7-bit activations (0..127, FBGEMM's reduce_range) keep
// every pair within range at the cost of one bit. With AVX-512 VNNI pairs add in 32 bits.
enum class Int8Activations { Full8Bit, Reduced7Bit };

// Reduced7Bit unless the CPU has AVX-512 VNNI and oneDNN may use it: ONEDNN_MAX_CPU_ISA or
// DNNL_MAX_CPU_ISA (isaLimit, the first one set; null when neither) below AVX512_CORE_VNNI
// keeps oneDNN on the saturating kernels.
Int8Activations int8ActivationsFor(bool avx512vnni, const char* isaLimit);
// This process's choice (the CPU and the environment); setInt8Activations overrides it for the
// products made after it (tests exercise the no-VNNI way on any machine).
Int8Activations int8Activations();
void setInt8Activations(Int8Activations activations);
// "8-bit activations (AVX-512 VNNI)" or "7-bit activations (WHY)".
std::string describeInt8Activations();

// y = x W^T + b with W quantized once to int8, a scale per output row, and x quantized per call:
// a quarter of the weight bytes read per product, and the CPU's int8 kernels.
// - Where oneDNN is found (onednn::available()): each row of x on its own symmetric scale, shifted
//   into u8, through oneDNN's gemm_u8s8s32 with the shift taken back off by column offsets, then
//   scaled in one pass: little cost of its own per call (LibTorch's quantized::linear_dynamic had
//   about ten times as much, more than int8 saved on a decoder's small products). The int8 rows are packed for
//   oneDNN's kernels at the first product on one thread (onednn::packS8), not at every one; a
//   shortlist's rows are packed once a batch.
// - Otherwise LibTorch's quantized::linear_dynamic (one scale for all of x), the int8 rows packed
//   with one scale of 1 and the row scales and bias applied to the product (LibTorch's oneDNN
//   packing reads per-row scales one element at a time, slow for a shortlist's rows).
// x is quantized as int8Activations() says when the Int8Linear is made (rows() keeps it).
class Int8Linear {
 public:
  // weight [out, in] fp32 on the CPU, bias [out] or undefined. Call useInt8Engine() first.
  Int8Linear(const at::Tensor& weight, const at::Tensor& bias);
  // What the constructor keeps of a weight [out, in]: each row on its own scale, largest |w| / 127
  // (at least 1e-12), the values w / scale rounded half to even in [-127, 127]: (int8 [out, in], scales [out]).
  static std::pair<at::Tensor, at::Tensor> quantizeWeight(const at::Tensor& weight);
  // x [..., in] fp32 -> [..., out] fp32
  at::Tensor operator()(const at::Tensor& x) const;
  // relu(this(x)), exactly: oneDNN's way takes it as the sums are scaled (no pass of its own).
  at::Tensor relu(const at::Tensor& x) const;

  // The layer norm x goes through before the product: weight and bias [in], eps.
  struct InputNorm {
    at::Tensor weight, bias;
    double eps;
  };
  // this(layer_norm(x)) and its relu: oneDNN's way normalizes each row as it quantizes it (no
  // LibTorch layer_norm, no normalized copy of x; its float sums are this file's, not LibTorch's).
  at::Tensor operator()(const at::Tensor& x, const InputNorm& norm) const;
  at::Tensor relu(const at::Tensor& x, const InputNorm& norm) const;
  // The same product over some of its rows (ids: int64 on the CPU), from the int8 weights as they
  // are: a shortlist's slice needs no new quantization, only its own packing.
  Int8Linear rows(const at::Tensor& ids) const;
  // One layer whose rows are those of each part in turn (their outputs side by side): the products of
  // several layers that read the same x in one, each output exactly what its own layer gives.
  static Int8Linear stacked(const std::vector<const Int8Linear*>& parts);

 private:
  struct Quantized {};
  Int8Linear(Quantized, at::Tensor values, at::Tensor scales, at::Tensor bias, bool reduceRange, bool oneDnn);
  void prepare();  // what products need besides the int8 rows: oneDNN's column offsets, or LibTorch's packing
  at::Tensor product(const at::Tensor& x, bool relu, const InputNorm* norm) const;
  // x [M, in] contiguous fp32
  at::Tensor productThroughOneDnn(const at::Tensor& x, bool relu, const InputNorm* norm) const;

  at::Tensor values_;  // [out, in] int8
  at::Tensor scales_;  // [out] fp32: row r of W is scales_[r] * values_[r]
  at::Tensor bias_;    // [out] fp32 or undefined
  bool reduceRange_;           // Int8Activations::Reduced7Bit
  bool oneDnn_;                // made when int8Products() was OneDnn: its products go that way
  at::Tensor columnOffsets_;  // [out] int32, oneDNN's way: -shift x the sum of each int8 row
  // oneDNN's way: values_ packed for its kernels (onednn::packS8) at the first single-threaded product;
  // shared by copies
  struct Packed;
  std::shared_ptr<Packed> packed_;
  c10::IValue torchPacked_;   // LibTorch's way (no oneDNN found): values_ packed as qint8 with scale 1
};

// An untied layer's Int8Linear, its fp32 weight freed (its row count becomes 0): quantizing should
// shrink a model in memory, not add a copy. For a layer nothing else reads (a tied embedding stays).
std::shared_ptr<const Int8Linear> replaceWithInt8(at::Tensor& weight, const at::Tensor& bias);

// Which kernels run int8 products: oneDNN's gemm_u8s8s32 where LibTorch's oneDNN library exports it
// (onednn::available(); Debian's LibTorch), else LibTorch's quantized::linear_dynamic (PyTorch's own
// builds hide oneDNN's symbols).
enum class Int8Products { OneDnn, Torch };
Int8Products int8Products();
// For the Int8Linears made after it (tests run both ways); OneDnn without oneDNN stays Torch.
void setInt8Products(Int8Products products);

// Whether int8 products cost little beyond their arithmetic (int8Products() is OneDnn): then
// --int8 runs every linear layer in int8 (Encoder::quantize, Decoder::quantize); otherwise only the
// output layer, the one product large enough to pay for LibTorch's quantized::linear_dynamic's own
// cost a call (through every layer translation was slower, and 7-bit activations on one scale for a
// whole batch moved log-probabilities by up to 0.19).
bool int8EveryLayer();

// Selects the int8 engine for this process (oneDNN, or x86/FBGEMM where LibTorch has them; QNNPACK
// is slower than fp32 on x86 CPUs). InputError saying why when none is usable.
void useInt8Engine();

}  // namespace nmt
