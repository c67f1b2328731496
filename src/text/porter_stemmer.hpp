// The Porter stemmer as NLTK's PorterStemmer computes it in its default mode
// (NLTK_EXTENSIONS): Porter's five steps with NLTK's changes (a pool of irregular
// forms, 'ies'/'ied' on four-letter words, 'y' -> 'i' only after a consonant that is
// not the first letter, 'alli'/'fulli'/'logi' in step 2, 'bli' -> 'ble', two-letter
// consonant-vowel-consonant stems). rouge-score stems with it (use_stemmer=True).
// Words are lowercase ASCII (rouge-score's tokens: [a-z0-9]+).
#pragma once
#include <string>
#include <string_view>

namespace fastamfm {

// The stem of `word`, written into out.
void porter_stem(std::string_view word, std::string& out);

}  // namespace fastamfm
