#include "model/DecoderState.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

using namespace nmt;

namespace {

// Rows r = 0..n-1 of a memory like the RNN decoder's: values [n, S, 2] holding 10 * r + position,
// a mask [n, S]; and a state like its h, [layers = 2, n, 3] holding r (batch dimension 1).
struct Rows {
  DecoderMemory memory;
  DecoderState state;
};

Rows rowsOf(std::vector<float> ids, int64_t S) {
  const auto n = static_cast<int64_t>(ids.size());
  const auto id = torch::tensor(ids);
  const auto values = (id.view({n, 1, 1}) * 10 + torch::arange(S).view({1, S, 1})).expand({n, S, 2}).contiguous();
  const auto mask = torch::ones({n, S}, torch::kBool);
  const auto h = id.view({1, n, 1}).expand({2, n, 3}).contiguous();
  return {DecoderMemory({{values, 0, 1}, {mask, 0, 1}}), DecoderState({{h, 1}})};
}

std::vector<float> rowIds(const DecoderState& state) {
  const auto ids = state[0].select(0, 0).select(1, 0).contiguous();
  return {ids.data_ptr<float>(), ids.data_ptr<float>() + ids.numel()};
}

}  // namespace

TEST_CASE("decoder state rows: select, first, rest follow each part's batch dimension") {
  const auto r = rowsOf({0, 1, 2, 3}, 5);
  CHECK(r.memory.rows() == 4);
  CHECK(r.state.rows() == 4);
  CHECK(r.memory.sourceLength() == 5);
  CHECK(r.state.sourceLength() == 0);
  const auto picked = r.state.select(torch::tensor({int64_t{3}, int64_t{0}}));
  CHECK(rowIds(picked) == std::vector<float>{3, 0});
  CHECK(rowIds(r.state.first(1)) == std::vector<float>{0});
  CHECK(rowIds(r.state.rest(1)) == std::vector<float>{1, 2, 3});
  const auto memory = r.memory.select(torch::tensor({int64_t{2}}));
  CHECK(memory[0].sizes() == torch::IntArrayRef({1, 5, 2}));
  CHECK(memory[0][0][4][0].item<float>() == 24.0f);
  CHECK(DecoderState().rows() == 0);
}

TEST_CASE("decoder state rows: stacking pads the source axis with zeros, which the mask hides") {
  const auto a = rowsOf({0, 1}, 3), b = rowsOf({7}, 5);
  const auto memory = DecoderMemory::stacked(a.memory, b.memory);
  CHECK(memory.rows() == 3);
  CHECK(memory.sourceLength() == 5);
  CHECK(memory[0][1][2][0].item<float>() == 12.0f);  // row 1 kept its values
  CHECK(memory[0][1][3][0].item<float>() == 0.0f);   // and is padded beyond its 3 positions
  CHECK(memory[1][1].sum().item<int64_t>() == 3);    // ... where its mask is false
  CHECK(memory[0][2][4][0].item<float>() == 74.0f);  // row 7 whole
  const auto state = DecoderState::stacked(a.state, b.state);
  CHECK(rowIds(state) == std::vector<float>{0, 1, 7});
  CHECK(rowIds(DecoderState::stacked(DecoderState(), b.state)) == std::vector<float>{7});
  // cutting the source axis back keeps the first positions
  CHECK(memory.withSourceLength(3)[0].sizes() == torch::IntArrayRef({3, 3, 2}));
  CHECK(torch::equal(memory.withSourceLength(3)[0].narrow(0, 0, 2), a.memory[0]));
}

TEST_CASE("decoder state rows: the first source positions cut away, and the fixed-shape mark kept by every operation") {
  const auto r = rowsOf({0, 1}, 5);
  const auto cut = r.memory.withoutFirstSourcePositions(2);
  CHECK(cut.sourceLength() == 3);
  CHECK(cut[0][1][0][0].item<float>() == 12.0f);  // row 1's position 2 first
  CHECK(cut[1].sizes() == torch::IntArrayRef({2, 3}));
  CHECK(rowIds(r.state.withoutFirstSourcePositions(2)) == std::vector<float>{0, 1});  // no source axis: as it was
  CHECK_FALSE(r.memory.fixedShape());
  const auto marked = r.memory.markedFixedShape();
  CHECK(marked.fixedShape());
  CHECK(torch::equal(marked[0], r.memory[0]));
  CHECK(marked.select(torch::tensor({int64_t{1}})).withSourceLength(8).withoutFirstSourcePositions(1).fixedShape());
  CHECK(DecoderMemory::stacked(marked, r.memory).fixedShape());
  CHECK_FALSE(DecoderMemory::stacked(r.memory, marked).fixedShape());  // a's mark
}

TEST_CASE("decoder state rows: overwrite puts a block's rows in place, padding either side's source axis") {
  auto running = rowsOf({0, 1, 2}, 3);
  const auto block = rowsOf({8, 9}, 4);
  const auto slots = torch::tensor({int64_t{2}, int64_t{0}});
  running.memory.overwrite(slots, block.memory);
  running.state.overwrite(slots, block.state);
  CHECK(rowIds(running.state) == std::vector<float>{9, 1, 8});
  CHECK(running.memory.sourceLength() == 4);
  CHECK(running.memory[0][0][3][0].item<float>() == 93.0f);
  CHECK(running.memory[0][1][3][0].item<float>() == 0.0f);  // row 1 padded
  CHECK(running.memory[1][1][3].item<bool>() == false);
  CHECK(running.memory[1][2][3].item<bool>() == true);
}

TEST_CASE("decoder state rows: reordered gives select's rows, in place unless the rows grow") {
  for (const auto& rows : {std::vector<int64_t>{0, 1, 2, 3, 4}, {4, 1, 1, 3, 0}, {3, 4, 2}, {2}}) {
    CAPTURE(rows);
    auto r = rowsOf({0, 1, 2, 3, 4}, 3);
    const auto expected = r.state.select(torch::tensor(rows));
    const auto expectedMemory = r.memory.select(torch::tensor(rows));
    const auto* storage = r.state[0].data_ptr<float>();
    const auto reordered = r.state.reordered(rows);
    CHECK(rowIds(reordered) == rowIds(expected));
    CHECK(reordered[0].data_ptr<float>() == storage);  // the same buffer: nothing allocated
    const auto memory = r.memory.reordered(rows);
    CHECK(torch::equal(memory[0], expectedMemory[0]));
    CHECK(torch::equal(memory[1], expectedMemory[1]));
  }
  auto r = rowsOf({0, 1}, 3);
  const auto grown = r.state.reordered({1, 0, 0});  // more rows than before: a select
  CHECK(rowIds(grown) == std::vector<float>{1, 0, 0});
  CHECK(rowIds(r.state) == std::vector<float>{0, 1});
}

TEST_CASE("decoder state rows: reordered moves rows of every layout a decoder keeps, in place") {
  // a Transformer cache [B, H, t, dk] cut from a buffer with room for more positions (heads strided),
  // a bool mask [B, t], an int64 position per row, and a layout with two strided axes
  const int64_t B = 5, H = 3, t = 4, room = 7, dk = 2;
  const auto id = torch::arange(B, torch::kFloat);
  const auto values = id.view({B, 1, 1, 1}) * 100 + torch::arange(H * t * dk, torch::kFloat).view({1, H, t, dk});
  const auto mask = torch::arange(B * t).view({B, t}).remainder(3).eq(0);
  const auto positions = torch::arange(B, torch::kLong) * 7;
  const auto twoStrided = (id.view({B, 1, 1, 1}) + torch::rand({1, 4, 3, 2})).expand({B, 4, 3, 2}).contiguous();
  struct Fresh {
    torch::Tensor buffer;
    DecoderState state;
  };
  auto fresh = [&] {
    auto buffer = torch::full({B, H, room, dk}, -1.0f);
    buffer.narrow(2, 0, t).copy_(values);
    return Fresh{buffer, DecoderState({{buffer.narrow(2, 0, t), 0, 2},
                                       {mask.clone(), 0, 1},
                                       {positions.clone(), 0},
                                       {twoStrided.clone().transpose(1, 2), 0}})};
  };
  for (const auto& rows : {std::vector<int64_t>{4, 1, 1, 3, 0}, {3, 4, 2}, {1, 0}}) {
    CAPTURE(rows);
    auto f = fresh();
    REQUIRE(f.state[0].stride(1) == room * dk);
    const auto expected = f.state.select(torch::tensor(rows));
    const auto reordered = f.state.reordered(rows);
    for (std::size_t i = 0; i < 4; ++i) CHECK(torch::equal(reordered[i], expected[i]));
    CHECK(reordered[0].data_ptr<float>() == f.buffer.data_ptr<float>());
    // the room after the cut stays untouched
    CHECK(f.buffer.narrow(2, t, room - t).eq(-1.0f).all().item<bool>());
  }
}
