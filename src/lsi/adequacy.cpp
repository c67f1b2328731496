#include "lsi/adequacy.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "common/errors.hpp"
#include "lsi/vector_clones.hpp"

namespace fastamfm {

AdequacyCombine parse_adequacy_combine(const std::string& name) {
  if (name == "max") return AdequacyCombine::Max;
  if (name == "mean") return AdequacyCombine::Mean;
  if (name == "centroid") return AdequacyCombine::Centroid;
  throw InputError("combine must be 'max', 'mean' or 'centroid', got '" + name + "'");
}

namespace {

void check_dims(const LsiModel& model, size_t dims) {
  if (dims == 0 || dims > model.dims())
    throw InputError("dims must be in 1.." + std::to_string(model.dims()) + " (the model's dimensions), got " +
                     std::to_string(dims));
}

// Projects sentence i into out row i, scaled to unit length; ids_of(i, ids, text)
// gives its token ids, possibly built in the per-thread scratch `ids` and `text`.
template <class IdsOf>
std::vector<float> unit_rows(const LsiModel& model, size_t n, size_t dims, int workers,
                             const InterruptCheck& interrupted, IdsOf&& ids_of) {
  std::vector<float> out(n * dims, 0.0f);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        std::vector<uint32_t> scratch;
        std::vector<TokenId> id_scratch;
        std::string text_scratch;
        std::vector<double> v(dims);
        for (size_t i = begin; i < end; ++i) {
          const auto [ids, count] = ids_of(i, id_scratch, text_scratch);
          if (!model.project(ids, count, dims, v.data(), scratch)) continue;
          double norm2 = 0.0;
          for (double x : v) norm2 += x * x;
          if (norm2 == 0.0) continue;  // known words whose projection vanishes: no direction
          const double scale = 1.0 / std::sqrt(norm2);
          for (size_t c = 0; c < dims; ++c) out[i * dims + c] = static_cast<float>(v[c] * scale);
        }
      },
      interrupted, 256);
  return out;
}

}  // namespace

std::vector<float> project_unit_vectors(const LsiModel& model, const TokenizedBatch& batch, size_t dims, int workers,
                                        const InterruptCheck& interrupted) {
  check_dims(model, dims);
  return unit_rows(model, batch.size(), dims, workers, interrupted, [&](size_t i, std::vector<TokenId>&, std::string&) {
    return std::pair<const TokenId*, size_t>(batch.ids(i), batch.num_tokens(i));
  });
}

std::vector<float> project_unit_vectors(const LsiModel& model, const TextBatch& texts, size_t dims, int workers,
                                        const InterruptCheck& interrupted) {
  check_dims(model, dims);
  const Tokenizer tokenizer = model.tokenizer();
  return unit_rows(model, texts.size(), dims, workers, interrupted,
                   [&](size_t i, std::vector<TokenId>& ids, std::string& text) {
                     ids.clear();
                     tokenizer.for_each_token(texts[i], text, [&](std::string_view t) { ids.push_back(hash_token(t)); });
                     return std::pair<const TokenId*, size_t>(ids.data(), ids.size());
                   });
}

void adequacy_scores(const float* hyps, size_t n, const float* refs, const uint64_t* ref_offsets, size_t dims,
                     AdequacyCombine combine, bool clip, double* out, int workers, const InterruptCheck& interrupted) {
  for (size_t i = 0; i < n; ++i)
    if (ref_offsets[i + 1] <= ref_offsets[i])
      throw InputError("adequacy: hypothesis " + std::to_string(i) + " has no reference");
  const double floor = clip ? 0.0 : -1.0;
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        std::vector<double> centroid(dims);
        for (size_t i = begin; i < end; ++i) {
          const float* h = hyps + i * dims;
          const uint64_t r0 = ref_offsets[i], r1 = ref_offsets[i + 1];
          double score = 0.0;
          if (combine == AdequacyCombine::Centroid) {
            std::fill(centroid.begin(), centroid.end(), 0.0);
            for (uint64_t r = r0; r < r1; ++r)
              for (size_t c = 0; c < dims; ++c) centroid[c] += refs[r * dims + c];
            double norm2 = 0.0, hc = 0.0;
            for (size_t c = 0; c < dims; ++c) {
              norm2 += centroid[c] * centroid[c];
              hc += static_cast<double>(h[c]) * centroid[c];
            }
            score = norm2 > 0 ? std::max(floor, hc / std::sqrt(norm2)) : 0.0;
          } else {
            // Max starts below every cosine so that a signed maximum can be negative.
            score = combine == AdequacyCombine::Max ? floor : 0.0;
            for (uint64_t r = r0; r < r1; ++r) {
              const double cosine = std::max(floor, dot_float(h, refs + r * dims, dims));
              score = combine == AdequacyCombine::Max ? std::max(score, cosine) : score + cosine;
            }
            if (combine == AdequacyCombine::Mean) score /= static_cast<double>(r1 - r0);
          }
          // Unit vectors rounded to float can exceed +-1 by an ulp.
          out[i] = std::min(std::max(score, -1.0), 1.0);
        }
      },
      interrupted, 64);
}

}  // namespace fastamfm
