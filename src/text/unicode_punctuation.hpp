// Punctuation outside ASCII, for the amfm preset's "punctuation removed" rule. The
// other Unicode steps of the preset (NFKC, full lowercasing) need CPython's large tables
// and run in Python before the text reaches the core; this one is a small table of
// ranges, so the core applies it while it splits the text.
#pragma once
#include <cstdint>

namespace fastamfm {

// True when `cp` (> U+007F) has a P* general category.
bool is_non_ascii_punctuation(uint32_t cp);

// The Unicode version of the table ("14.0.0").
const char* unicode_punctuation_version();

}  // namespace fastamfm
