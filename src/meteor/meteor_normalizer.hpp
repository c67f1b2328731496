// METEOR 1.5's `-norm` text normalisation for English (punctuation kept, split
// off as words), followed by its lowercasing and whitespace tokenization: the exact
// word list the jar aligns. Reproduces the behaviour of the jar's Moses-derived
// normalizer (Moses tokenizer rules plus quote/dash normalisation, dots of "U.S."
// dropped, nonbreaking prefixes such as "Mr." kept whole).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "meteor/meteor_resources.hpp"

namespace fastamfm {

// The normalised, lowercased words of one UTF-8 line. `prefixes` supplies the
// nonbreaking-prefix list (null: no prefix is nonbreaking).
std::vector<std::string> meteor_normalize_words(std::string_view line, const MeteorResources* prefixes);

// Java's String.hashCode of the UTF-16 form of a UTF-8 word: the jar compares
// words by this 32-bit key, so two different words with the same key match
// exactly in the jar and must here too.
int32_t java_string_hash(std::string_view utf8_word);

}  // namespace fastamfm
