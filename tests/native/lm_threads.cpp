// The LM training call without Python, for the thread checkers (TSan, helgrind, DRD) that
// cannot run inside an uninstrumented CPython: tiny corpora (one word, empty lines,
// duplicates, markers) x orders 1..6 x Kneser-Ney/Katz x pruning x an open and a closed
// vocabulary x a memory budget that spills, each trained with 1 worker and with 2, 3, 16
// and 33, several trainings at once on std::threads; every model's checksum must equal the
// one-worker model's. Exit 1 on a mismatch.
//
//   cmake --build build/X --target fastamfm_lm_threads && build/X/fastamfm_lm_threads [threads] [max order]
//   (a build configured with -DCMAKE_CXX_FLAGS=-fsanitize=thread runs it under TSan)
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "lm/lm_counter.hpp"
#include "lm/lm_training.hpp"

using namespace fastamfm;

static uint64_t train(const std::vector<std::string>& corpus, int order, LmSmoothing smoothing, double prune,
                      int workers, bool closed, size_t budget) {
  std::vector<std::string> vocab;
  if (closed) vocab = {"a", "b", "the"};
  CounterOptions co{order, budget, "/tmp", workers};
  NgramCounter counter(co, Tokenizer(), vocab);
  TextBatch batch;
  for (const auto& s : corpus) batch.push_back(s);
  counter.add(batch);
  NgramCounts counts = counter.finish();
  if (counts.tokens == 0) return 1;
  LmTrainOptions options;
  options.smoothing = smoothing;
  options.prune = prune;
  options.workers = workers;
  std::vector<std::string> discounts;
  return train_lm(std::move(counts), options, discounts).checksum();
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 4;
  const int max_order = argc > 2 ? std::atoi(argv[2]) : 6;
  std::vector<std::vector<std::string>> corpora = {
      {"a"}, {"a a a a"}, {"", "a", ""}, {"a b c", "a b", "b c a", "c"}, {"the dog barks at the cat"},
      {"a b c", "a b c", "a b c", "a b c"}, {"<s> a </s>", "a <unk> b"}, {"x y z w v u t s r q p o"}};
  std::atomic<int> failures{0}, trainings{0};
  auto work = [&](int id) {
    for (size_t c = 0; c < corpora.size(); ++c)
      for (int order = 1; order <= max_order; ++order)
        for (LmSmoothing sm : {LmSmoothing::KneserNey, LmSmoothing::Katz})
          for (double prune : {0.0, 1e-3})
            for (bool closed : {false, true})
              for (size_t budget : {size_t{1} << 30, size_t{256}}) {
                if ((c + order + id) % threads != static_cast<size_t>(id) % threads && id > 0) continue;
                uint64_t one = train(corpora[c], order, sm, prune, 1, closed, budget);
                for (int w : {2, 3, 16, 33}) {
                  uint64_t many = train(corpora[c], order, sm, prune, w, closed, budget);
                  ++trainings;
                  if (many != one) {
                    ++failures;
                    std::fprintf(stderr, "MISMATCH corpus %zu order %d workers %d\n", c, order, w);
                  }
                }
              }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (auto& t : pool) t.join();
  std::printf("native LM threads: %d trainings, %d mismatches\n", trainings.load(), failures.load());
  return failures ? 1 : 0;
}
