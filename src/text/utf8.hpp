// UTF-8 validation and decoding (RFC 3629: no overlongs, no surrogates, <= U+10FFFF).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fastamfm {

// Returns SIZE_MAX when `text` is valid UTF-8, else the byte offset of the first bad byte.
size_t find_invalid_utf8(std::string_view text);

// Decodes one code point starting at text[pos] of already-validated text; advances pos.
uint32_t decode_utf8(std::string_view text, size_t& pos);

// Appends the UTF-8 encoding of code point cp to out.
void append_utf8(uint32_t cp, std::string& out);

// Throws InputError "<what> <index>: invalid UTF-8 at byte <offset>" if text is invalid.
void validate_utf8(std::string_view text, const char* what, size_t index);

}  // namespace fastamfm
