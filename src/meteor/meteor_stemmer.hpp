// The Snowball English ("Porter2") stemmer, as METEOR 1.5's stem stage runs it.
// Written from the published algorithm description (snowballstem.org, English
// stemmer), in the variant the METEOR 1.5 jar bundles: the special R1 prefixes are
// gener/commun/arsen and Step 1c needs a non-vowel that is not the first letter.
#pragma once
#include <string>
#include <string_view>

namespace fastamfm {

// Stems one UTF-8 word (already lowercased). Characters outside a-z are treated as
// non-vowels, exactly as the Java stemmer treats them; words of fewer than three
// characters are returned unchanged.
std::string snowball_english_stem(std::string_view word);

}  // namespace fastamfm
