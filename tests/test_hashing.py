"""The token hash against a readable Python oracle: keys must never change."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

_testing = pytest.importorskip("fastamfm._testing", reason="fastamfm was built without its test hooks (FASTAMFM_TEST_HOOKS=ON; the README's test command builds them)")

MASK = (1 << 64) - 1


def mix64(x: int) -> int:
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def hash_token(token: bytes) -> int:
    """8-byte little-endian words, then the 0..7 tail bytes, each folded through mix64."""
    h = 0x9E3779B97F4A7C15 ^ ((len(token) * 0xFF51AFD7ED558CCD) & MASK)
    full = len(token) - len(token) % 8
    for i in range(0, full, 8):
        h = mix64(h ^ int.from_bytes(token[i:i + 8], "little"))
    return mix64(h ^ int.from_bytes(token[full:], "little") ^ 0x2545F4914F6CDD1D)


def test_every_length_up_to_40():
    for n in range(41):
        token = bytes((37 * i + 11) % 256 for i in range(n))
        assert _testing.hash_token(token) == hash_token(token), n


@settings(max_examples=300)
@given(st.binary(max_size=48))
def test_random_bytes(token):
    assert _testing.hash_token(token) == hash_token(token)


def test_known_value_of_a_word():
    # Pinned: a change here would break agreement with keys encoded by earlier versions.
    assert _testing.hash_token(b"hello") == 0x2c587e76c1c83fbe
