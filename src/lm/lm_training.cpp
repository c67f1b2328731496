#include "lm/lm_training.hpp"

#include <sstream>

#include "common/errors.hpp"
#include "lm/lm_katz.hpp"
#include "lm/lm_kneser_ney.hpp"
#include "lm/lm_pruning.hpp"

namespace fastamfm {

LmSmoothing parse_lm_smoothing(const std::string& name) {
  if (name == "kneser-ney") return LmSmoothing::KneserNey;
  if (name == "katz") return LmSmoothing::Katz;
  throw InputError("smoothing must be 'kneser-ney' or 'katz', got '" + name + "'");
}

NgramModel train_lm(NgramCounts&& counts, const LmTrainOptions& options, std::vector<std::string>& discounts) {
  if (counts.tokens == 0) throw InputError("empty corpus: no tokens to train a language model on");
  const int order = static_cast<int>(counts.orders.size());
  LmContent content;
  discounts.clear();
  std::ostringstream meta;
  meta.precision(10);
  meta << "source=fastamfm\norder=" << order << "\nsmoothing="
       << (options.smoothing == LmSmoothing::KneserNey ? "kneser-ney" : "katz") << "\ntokenizer=" << options.tokenizer
       << "\nsentences=" << counts.sentences << "\ntokens=" << counts.tokens
       << "\nclosed_vocabulary=" << (counts.closed_vocabulary ? 1 : 0) << "\n";
  if (options.smoothing == LmSmoothing::KneserNey) {
    for (double d : options.discount_fallback)
      if (!(d >= 0.0)) throw InputError("discount_fallback values must be >= 0");
    std::vector<KneserNeyDiscounts> kn;
    content = estimate_kneser_ney(counts, options.discount_fallback, options.workers, kn);
    for (size_t n = 0; n < kn.size(); ++n) {
      std::ostringstream line;
      line.precision(10);
      line << "order " << n + 1 << ": D1=" << kn[n].d[1] << " D2=" << kn[n].d[2] << " D3+=" << kn[n].d[3]
           << (kn[n].fallback ? " (fallback)" : "");
      discounts.push_back(line.str());
    }
  } else {
    const auto gtmin = options.gtmin.empty() ? default_gtmin(order) : options.gtmin;
    const auto gtmax = options.gtmax.empty() ? default_gtmax(order) : options.gtmax;
    std::vector<GoodTuringDiscounts> gt;
    content = estimate_katz(counts, gtmin, gtmax, options.workers, gt);
    for (size_t n = 0; n < gt.size(); ++n) {
      std::ostringstream line;
      line.precision(10);
      line << "order " << n + 1 << ": gtmin=" << gt[n].min_count << " gtmax=" << gt[n].max_count;
      for (size_t r = 1; r < gt[n].coeff.size(); ++r) line << " d" << r << "=" << gt[n].coeff[r];
      discounts.push_back(line.str());
    }
  }
  counts = NgramCounts();
  if (options.prune > 0.0) {
    prune_by_relative_entropy(content, options.prune);
    meta << "prune=" << options.prune << "\n";
  }
  for (const auto& line : discounts) meta << "discounts=" << line << "\n";
  content.metadata = meta.str();
  return NgramModel::build(content);
}

}  // namespace fastamfm
