// sacrebleu's BLEU tokenizers, as text rewrites: each writes the segment the way
// sacrebleu hands it to its n-gram counter, which then splits it on whitespace
// (str.split()), so Tokenizer::for_each_token splits the output like any preset.
//
//   13a   mteval-v13a: '<skipped>' and '-\n' removed, newlines to spaces, the four
//         HTML entities &quot; &amp; &lt; &gt; decoded, then the mteval regular
//         expressions (ASCII punctuation and symbols split off; '.' and ',' split off
//         unless between digits; '-' after a digit split off).
//   intl  mteval-v14 international: Unicode punctuation (\p{P}) split off unless
//         between digits (\p{N}), symbols (\p{S}) always.
//   char  every non-whitespace character a token.
//   zh    Chinese characters (sacrebleu's code-point ranges, read as Python compares
//         them) split off, then the 13a expressions without the entity step.
//   none  the text as it is.
// Every one first strips trailing whitespace (sacrebleu's rstrip() before tokenizing).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace fastamfm {

enum class SacrebleuTokenize { None, Mteval13a, Intl, Char, Zh };

// Writes the rewritten text into out (cleared first) and returns it.
std::string_view sacrebleu_tokenize(SacrebleuTokenize kind, std::string_view text, std::string& out);

// True for the code points sacrebleu's zh tokenizer surrounds with spaces.
bool is_sacrebleu_chinese(uint32_t cp);

}  // namespace fastamfm
