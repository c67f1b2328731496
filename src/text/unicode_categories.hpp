// Unicode general categories that sacrebleu's "intl" tokenizer tests (\p{P}, \p{S},
// \p{N} of the `regex` module): one small table of ranges, so the core tokenizes any
// text on its own threads, with no Python step.
#pragma once
#include <cstdint>

namespace fastamfm {

enum class CharClass : uint8_t { Other, Punctuation, Symbol, Number };

// The class of code point `cp`: P* -> Punctuation, S* -> Symbol, N* -> Number.
CharClass char_class(uint32_t cp);

}  // namespace fastamfm
