"""Type map of fastamfm._core, the compiled C++ core (pybind11 bindings of csrc/ over src/).

Generated from the bindings' own signatures by pybind11-stubgen and checked against the built
module by tests/test_core_stub.py (names, classes, members and parameter names must agree);
regenerate with: python3 tests/test_core_stub.py --write
"""
from __future__ import annotations
import collections.abc
import numpy
import numpy.typing
import typing
__all__: list[str] = ['BleuReferenceCounts', 'ChrfTexts', 'CiderReferenceModel', 'CountedDocuments', 'DocumentFrequency', 'EmbeddedReferences', 'EncodedHypotheses', 'FormatError', 'LineReader', 'LsiModel', 'MAX_NGRAM_ORDER', 'MeteorReferences', 'MeteorResources', 'NgramCounter', 'NgramCounts', 'NgramModel', 'ReferenceSet', 'RougeDocuments', 'TermDocumentBuilder', 'TermDocumentMatrix', 'TokenIdBatch', 'TokenSequences', 'Tokenizer', 'WordVectors', 'adequacy_scores', 'bleu', 'bleu_corpus', 'bleu_ids', 'bleu_text', 'build_vector_cache', 'chrf', 'chrf_corpus', 'chrf_pairwise', 'cider', 'count_documents', 'count_lines', 'detect_vector_format', 'distinct', 'embedding_scores', 'exact_sum', 'flatten_ragged', 'fluency_from_probabilities', 'format_score_rows', 'get_limits', 'is_non_ascii_punctuation', 'line_start_offsets', 'merge_ngram_counts', 'meteor_corpus_score', 'meteor_normalize', 'meteor_stem', 'resolve_workers', 'rouge_ids', 'rouge_l', 'rouge_l_split_on_spaces', 'rouge_l_text', 'rouge_pairwise', 'rouge_score', 'sacrebleu', 'sacrebleu_corpus', 'sacrebleu_pairwise', 'self_bleu', 'set_limits', 'split_on_spaces', 'unicode_punctuation_version', 'vector_cache_is_current', 'write_file_atomic']
class FormatError(ValueError):
    column: int | None = None
    line: int | None = None
    path: str | None = None
    record: int | None = None
class Tokenizer:
    def __init__(self, preset: str = 'whitespace', lowercase: bool = False) -> None:
        ...
    def describe(self) -> str:
        ...
    def tokenize(self, arg0: str) -> list[str]:
        ...
    def tokenize_batch(self, texts: typing.Any, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> list:
        ...
    @property
    def lowercase(self) -> bool:
        ...
    @property
    def preset(self) -> str:
        ...
class LineReader:
    def __init__(self, path: str, max_line_bytes: typing.SupportsInt | typing.SupportsIndex = 0, start_offset: typing.SupportsInt | typing.SupportsIndex = 0, first_line: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        """
        max_line_bytes 0: the limit in fastamfm.limits; start_offset/first_line: read from a line start
        """
    def read_chunk(self, max_lines: typing.SupportsInt | typing.SupportsIndex) -> list:
        ...
    @property
    def bytes_read(self) -> int:
        ...
    @property
    def line_number(self) -> int:
        ...
    @property
    def path(self) -> str:
        ...
class ReferenceSet:
    @staticmethod
    def ngram_key(arg0: collections.abc.Sequence[str]) -> int:
        ...
    def __init__(self, flat_refs: typing.Any, segment_offsets: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], tokenizer: Tokenizer, max_order: typing.SupportsInt | typing.SupportsIndex = 4, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        ...
    def ngram_counts(self, arg0: typing.SupportsInt | typing.SupportsIndex, arg1: typing.SupportsInt | typing.SupportsIndex) -> dict:
        ...
    def tokens(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> list[str]:
        ...
    @property
    def lengths(self) -> numpy.typing.NDArray[numpy.uint32]:
        ...
    @property
    def max_order(self) -> int:
        ...
    @property
    def num_references(self) -> int:
        ...
    @property
    def num_segments(self) -> int:
        ...
    @property
    def segment_offsets(self) -> numpy.typing.NDArray[numpy.uint64]:
        ...
    @property
    def tokenizer(self) -> Tokenizer:
        ...
class EncodedHypotheses:
    def __init__(self, hyps: typing.Any, tokenizer: Tokenizer, max_order: typing.SupportsInt | typing.SupportsIndex, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        ...
    def tokens(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> list[str]:
        ...
    @property
    def max_order(self) -> int:
        ...
    @property
    def size(self) -> int:
        ...
    @property
    def tokenizer(self) -> Tokenizer:
        ...
class BleuReferenceCounts:
    def __init__(self, refs: ReferenceSet, max_order: typing.SupportsInt | typing.SupportsIndex, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        ...
    @property
    def max_order(self) -> int:
        ...
class TokenSequences:
    def tokens(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> list[str]:
        ...
    @property
    def size(self) -> int:
        ...
class DocumentFrequency:
    def __init__(self, max_order: typing.SupportsInt | typing.SupportsIndex = 4) -> None:
        ...
    def add(self, refs: ReferenceSet, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        ...
    def add_entries(self, keys: typing.Annotated[numpy.typing.ArrayLike, numpy.uint64], counts: typing.Annotated[numpy.typing.ArrayLike, numpy.uint32], segments: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        Adds the entries of a table counted over `segments` other segments.
        """
    def count(self, ngram: collections.abc.Sequence[str]) -> int:
        """
        Segments whose references contain the n-gram given as a list of tokens.
        """
    def entries(self) -> tuple[numpy.typing.NDArray[numpy.uint64], numpy.typing.NDArray[numpy.uint32]]:
        """
        (n-gram keys sorted, segment counts): the table's content, to merge or store it.
        """
    @property
    def max_order(self) -> int:
        ...
    @property
    def num_ngrams(self) -> int:
        ...
    @property
    def num_segments(self) -> int:
        ...
class CiderReferenceModel:
    def __init__(self, refs: ReferenceSet, document_frequency: DocumentFrequency, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        ...
class WordVectors:
    @staticmethod
    def from_arrays(words: collections.abc.Sequence[str], matrix: typing.Annotated[numpy.typing.ArrayLike, numpy.float32], workers: typing.SupportsInt | typing.SupportsIndex = -1) -> WordVectors:
        ...
    @staticmethod
    def load_uncached(path: str, format: str, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> WordVectors:
        ...
    @staticmethod
    def open(cache_path: str, mmap: bool = True) -> WordVectors:
        ...
    def find(self, word: str) -> typing.Any:
        ...
    def words(self) -> list:
        ...
    @property
    def dim(self) -> int:
        ...
    @property
    def duplicates_dropped(self) -> int:
        ...
    @property
    def mean(self) -> numpy.typing.NDArray[numpy.float64]:
        ...
    @property
    def origin(self) -> str:
        ...
    @property
    def size(self) -> int:
        ...
    @property
    def source_head_hash(self) -> int:
        ...
    @property
    def vectors(self) -> numpy.typing.NDArray[numpy.float32]:
        ...
class EmbeddedReferences:
    def __init__(self, vectors: WordVectors, refs: ReferenceSet, oov: str, keep_sentence_vectors: bool, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        ...
class TermDocumentMatrix:
    @staticmethod
    def from_csr(num_docs: typing.SupportsInt | typing.SupportsIndex, num_terms: typing.SupportsInt | typing.SupportsIndex, indptr: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], indices: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], data: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], chunk_bytes: typing.SupportsInt | typing.SupportsIndex = 268435456) -> TermDocumentMatrix:
        ...
    def multiply_a_at(self, x: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], workers: typing.SupportsInt | typing.SupportsIndex = -1, progress: collections.abc.Callable[[int, int], None] | None = None) -> numpy.typing.NDArray[numpy.float64]:
        ...
    def multiply_gaussian(self, seed: typing.SupportsInt | typing.SupportsIndex, l: typing.SupportsInt | typing.SupportsIndex, workers: typing.SupportsInt | typing.SupportsIndex = -1, progress: collections.abc.Callable[[int, int], None] | None = None) -> numpy.typing.NDArray[numpy.float64]:
        ...
    @property
    def nnz(self) -> int:
        ...
    @property
    def num_chunks(self) -> int:
        ...
    @property
    def num_docs(self) -> int:
        ...
    @property
    def num_terms(self) -> int:
        ...
    @property
    def on_disk(self) -> bool:
        ...
class CountedDocuments:
    """
    Documents tokenized and counted by count_documents, to be added to a TermDocumentBuilder (picklable: sent between processes)
    """
    def __getstate__(self) -> tuple[numpy.typing.NDArray[numpy.uint64], numpy.typing.NDArray[numpy.uint64], numpy.typing.NDArray[numpy.uint32], numpy.typing.NDArray[numpy.uint64], list[str]]:
        ...
    def __setstate__(self, arg0: tuple) -> None:
        ...
    @property
    def nnz(self) -> int:
        ...
    @property
    def num_docs(self) -> int:
        ...
class TermDocumentBuilder:
    def __init__(self, tokenizer: Tokenizer, chunk_bytes: typing.SupportsInt | typing.SupportsIndex, spill_dir: str = '') -> None:
        ...
    def add(self, texts: typing.Any, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        ...
    def add_counted(self, documents: CountedDocuments) -> None:
        ...
    def finish(self, min_count: typing.SupportsInt | typing.SupportsIndex, max_vocab: typing.SupportsInt | typing.SupportsIndex, weighting: str, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> tuple[TermDocumentMatrix, list[str], numpy.typing.NDArray[numpy.float64]]:
        ...
    @property
    def num_docs(self) -> int:
        ...
    @property
    def num_types(self) -> int:
        ...
class LsiModel:
    @staticmethod
    def load(path: str, mmap: bool = True) -> LsiModel:
        ...
    def __init__(self, words: collections.abc.Sequence[str], global_weights: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], components: typing.Annotated[numpy.typing.ArrayLike, numpy.float32], singular_values: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], weighting: str, tokenizer: Tokenizer, documents: typing.SupportsInt | typing.SupportsIndex, seed: typing.SupportsInt | typing.SupportsIndex, oversampling: typing.SupportsInt | typing.SupportsIndex, power_iterations: typing.SupportsInt | typing.SupportsIndex, min_count: typing.SupportsInt | typing.SupportsIndex, max_vocab: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def encoded_unit_vectors(self, hyps: EncodedHypotheses, dims: typing.SupportsInt | typing.SupportsIndex, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> numpy.typing.NDArray[numpy.float32]:
        """
        Unit vectors of hypotheses already tokenized with the model's tokenizer.
        """
    def reference_unit_vectors(self, references: ReferenceSet, dims: typing.SupportsInt | typing.SupportsIndex, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> numpy.typing.NDArray[numpy.float32]:
        ...
    def save(self, path: str) -> None:
        ...
    def transform(self, texts: typing.Any, dims: typing.SupportsInt | typing.SupportsIndex, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> numpy.typing.NDArray[numpy.float64]:
        ...
    def unit_vectors(self, texts: typing.Any, dims: typing.SupportsInt | typing.SupportsIndex, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> numpy.typing.NDArray[numpy.float32]:
        ...
    @property
    def components(self) -> numpy.typing.NDArray[numpy.float32]:
        ...
    @property
    def dims(self) -> int:
        ...
    @property
    def global_weights(self) -> numpy.typing.NDArray[numpy.float64]:
        ...
    @property
    def num_terms(self) -> int:
        ...
    @property
    def settings(self) -> dict:
        ...
    @property
    def singular_values(self) -> numpy.typing.NDArray[numpy.float64]:
        ...
    @property
    def tokenizer(self) -> Tokenizer:
        ...
    @property
    def vocabulary(self) -> list[str]:
        ...
    @property
    def weighting(self) -> str:
        ...
class NgramCounts:
    """
    The n-gram counts of (a part of) a corpus: picklable, merged with merge_ngram_counts
    """
    def __getstate__(self) -> tuple:
        ...
    def __setstate__(self, arg0: tuple) -> None:
        ...
    def counts(self) -> list[int]:
        """
        Number of distinct n-grams of each order
        """
    @property
    def order(self) -> int:
        ...
    @property
    def sentences(self) -> int:
        ...
    @property
    def spilled_runs(self) -> int:
        ...
    @property
    def tokens(self) -> int:
        ...
    @property
    def vocabulary_size(self) -> int:
        ...
class NgramCounter:
    def __init__(self, order: typing.SupportsInt | typing.SupportsIndex, memory_budget: typing.SupportsInt | typing.SupportsIndex, temp_dir: str, workers: typing.SupportsInt | typing.SupportsIndex, tokenizer: Tokenizer, vocabulary: collections.abc.Sequence[str]) -> None:
        ...
    def add(self, texts: typing.Any) -> None:
        ...
    def add_file(self, path: str) -> None:
        ...
    def finish(self) -> NgramCounts:
        """
        The sorted counts (NgramCounts), handed over: the counter cannot be used afterwards
        """
    @property
    def sentences(self) -> int:
        ...
    @property
    def spilled_runs(self) -> int:
        ...
    @property
    def tokens(self) -> int:
        ...
class NgramModel:
    @staticmethod
    def is_binary_file(path: str) -> bool:
        ...
    @staticmethod
    def load(path: str, mmap: bool = True) -> NgramModel:
        ...
    @staticmethod
    @typing.overload
    def train(counter: NgramCounter, smoothing: str, discount_fallback: typing.Annotated[collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex], "FixedSize(3)"], gtmin: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], gtmax: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], prune: typing.SupportsFloat | typing.SupportsIndex, tokenizer: str, workers: typing.SupportsInt | typing.SupportsIndex) -> tuple:
        ...
    @staticmethod
    @typing.overload
    def train(counts: NgramCounts, smoothing: str, discount_fallback: typing.Annotated[collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex], "FixedSize(3)"], gtmin: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], gtmax: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], prune: typing.SupportsFloat | typing.SupportsIndex, tokenizer: str, workers: typing.SupportsInt | typing.SupportsIndex) -> tuple:
        """
        The same from counts (which are taken over: empty afterwards)
        """
    def counts(self) -> list[int]:
        ...
    def hypothesis_probabilities(self, hyps: EncodedHypotheses, normalization: str, oov: str, workers: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
        """
        FM's normalised sentence probability of each hypothesis.
        """
    def reference_probabilities(self, refs: ReferenceSet, normalization: str, oov: str, workers: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
        """
        FM's normalised sentence probability of each reference (flattened).
        """
    def save(self, path: str) -> None:
        ...
    def save_arpa(self, path: str) -> None:
        ...
    def score(self, sentences: typing.Any, tokenizer: Tokenizer, bos: bool, eos: bool, workers: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
        ...
    def token_scores(self, sentences: typing.Any, tokenizer: Tokenizer, bos: bool, eos: bool, workers: typing.SupportsInt | typing.SupportsIndex) -> tuple[numpy.typing.NDArray[numpy.float32], numpy.typing.NDArray[numpy.uint8], numpy.typing.NDArray[numpy.bool], numpy.typing.NDArray[numpy.uint64]]:
        ...
    def words(self) -> list:
        ...
    @property
    def checksum(self) -> int:
        ...
    @property
    def metadata(self) -> str:
        ...
    @property
    def order(self) -> int:
        ...
    @property
    def vocabulary_size(self) -> int:
        ...
class TokenIdBatch:
    def __init__(self, texts: typing.Any, tokenizer: Tokenizer, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        """
        Token ids of texts under a tokenizer (references prepared once for sacreBLEU).
        """
    @property
    def size(self) -> int:
        ...
class ChrfTexts:
    def __init__(self, texts: typing.Any, char_order: typing.SupportsInt | typing.SupportsIndex, word_order: typing.SupportsInt | typing.SupportsIndex, whitespace: bool, lowercase: bool, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        """
        Characters and words of texts as chrF compares them (references prepared once).
        """
class RougeDocuments:
    def __init__(self, texts: typing.Any, tokenizer: Tokenizer, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        """
        Tokens and lines of texts as rouge-score reads them (references prepared once).
        """
class MeteorResources:
    @staticmethod
    def build(function_words: bytes, synsets: bytes, exceptions: bytes, nonbreaking_prefixes: bytes, paraphrases: typing.Any = None) -> MeteorResources:
        ...
    @staticmethod
    def load(path: str, mmap: bool = True) -> MeteorResources:
        ...
    def is_function_word(self, word: str) -> bool:
        ...
    def save(self, path: str) -> None:
        ...
    def synonym_sets(self, word: str) -> list[int]:
        ...
    @property
    def has_paraphrases(self) -> bool:
        ...
    @property
    def num_paraphrases(self) -> int:
        ...
    @property
    def num_synonym_words(self) -> int:
        ...
class MeteorReferences:
    def __init__(self, flat_refs: typing.Any, segment_offsets: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], resources: MeteorResources, stages: collections.abc.Sequence[bool], workers: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        ...
    def score(self, hyps: typing.Any, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> tuple[float, numpy.typing.NDArray[numpy.float64], numpy.typing.NDArray[numpy.float64], numpy.typing.NDArray[numpy.float64]]:
        """
        (corpus score, sentence scores, the jar's 23 statistics per segment, their corpus sum)
        """
    @property
    def num_references(self) -> int:
        ...
    @property
    def num_segments(self) -> int:
        ...
def adequacy_scores(hyps: typing.Annotated[numpy.typing.ArrayLike, numpy.float32], refs: typing.Annotated[numpy.typing.ArrayLike, numpy.float32], ref_offsets: typing.Annotated[numpy.typing.ArrayLike, numpy.uint64], combine: str = 'max', workers: typing.SupportsInt | typing.SupportsIndex = -1, clip: bool = True) -> numpy.typing.NDArray[numpy.float64]:
    ...
@typing.overload
def bleu(hyps: EncodedHypotheses, refs: ReferenceSet, max_order: typing.SupportsInt | typing.SupportsIndex, ref_length: str, smooth: str | None, smooth_value: typing.SupportsFloat | typing.SupportsIndex, workers: typing.SupportsInt | typing.SupportsIndex) -> tuple:
    """
    BLEU against encoded references, clipping against each reference in turn.
    """
@typing.overload
def bleu(hyps: EncodedHypotheses, ref_counts: BleuReferenceCounts, max_order: typing.SupportsInt | typing.SupportsIndex, ref_length: str, smooth: str | None, smooth_value: typing.SupportsFloat | typing.SupportsIndex, workers: typing.SupportsInt | typing.SupportsIndex) -> tuple:
    """
    BLEU against the per-segment maxima of references scored before. Both overloads return (sentence scores [n, max_order], per-segment statistics).
    """
def bleu_corpus(hyp_len: typing.SupportsFloat | typing.SupportsIndex, ref_len: typing.SupportsFloat | typing.SupportsIndex, guess: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], correct: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> numpy.typing.NDArray[numpy.float64]:
    """
    Corpus BLEU-1..k from summed statistics (pycocoevalcap's formula).
    """
def bleu_ids(hyp_ids: typing.Annotated[numpy.typing.ArrayLike, numpy.uint64], hyp_offsets: typing.Annotated[numpy.typing.ArrayLike, numpy.uint64], ref_ids: typing.Annotated[numpy.typing.ArrayLike, numpy.uint64], ref_offsets: typing.Annotated[numpy.typing.ArrayLike, numpy.uint64], segment_offsets: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], max_order: typing.SupportsInt | typing.SupportsIndex, smooth: str, smooth_value: typing.SupportsFloat | typing.SupportsIndex, effective_order: bool, convention: str, workers: typing.SupportsInt | typing.SupportsIndex) -> tuple:
    """
    Sentence BLEU of token-id sequences: (scores [n] on 0..100 (sacrebleu) or 0..1 (tensorbleu), statistics).
    """
def bleu_text(hyps: typing.Any, flat_refs: typing.Any, segment_offsets: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], tokenizer: Tokenizer, max_order: typing.SupportsInt | typing.SupportsIndex, ref_length: str, smooth: str | None, smooth_value: typing.SupportsFloat | typing.SupportsIndex, workers: typing.SupportsInt | typing.SupportsIndex) -> tuple:
    """
    BLEU straight from text (one-shot: no reference tables kept).
    """
def build_vector_cache(source: str, format: str, cache_path: str, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
    ...
@typing.overload
def chrf(hyps: typing.Any, refs: ChrfTexts, segment_offsets: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], beta: typing.SupportsFloat | typing.SupportsIndex, eps_smoothing: bool, workers: typing.SupportsInt | typing.SupportsIndex) -> tuple:
    """
    sacrebleu's chrF against prepared references.
    """
@typing.overload
def chrf(hyps: typing.Any, flat_refs: typing.Any, segment_offsets: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], char_order: typing.SupportsInt | typing.SupportsIndex, word_order: typing.SupportsInt | typing.SupportsIndex, beta: typing.SupportsFloat | typing.SupportsIndex, whitespace: bool, eps_smoothing: bool, lowercase: bool, workers: typing.SupportsInt | typing.SupportsIndex) -> tuple:
    """
    sacrebleu's chrF: (sentence scores [n], statistics [n, 3 * orders]).
    """
def chrf_corpus(statistics: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], char_order: typing.SupportsInt | typing.SupportsIndex, word_order: typing.SupportsInt | typing.SupportsIndex, beta: typing.SupportsFloat | typing.SupportsIndex, eps_smoothing: bool) -> float:
    ...
def chrf_pairwise(candidates: typing.Any, references: typing.Any, char_order: typing.SupportsInt | typing.SupportsIndex, word_order: typing.SupportsInt | typing.SupportsIndex, beta: typing.SupportsFloat | typing.SupportsIndex, whitespace: bool, eps_smoothing: bool, lowercase: bool, workers: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float32]:
    ...
def cider(hyps: EncodedHypotheses, model: CiderReferenceModel, sigma: typing.SupportsFloat | typing.SupportsIndex, workers: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    ...
def count_documents(texts: typing.Any, tokenizer: Tokenizer, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> CountedDocuments:
    """
    One document per text, tokenized and counted for TermDocumentBuilder.add_counted
    """
def count_lines(path: str) -> int:
    ...
def detect_vector_format(path: str) -> str:
    ...
def distinct(hyps: EncodedHypotheses, orders: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], workers: typing.SupportsInt | typing.SupportsIndex) -> dict:
    ...
def embedding_scores(refs: EmbeddedReferences, hyps: typing.Any, tokenizer: Tokenizer, average: bool, extrema: bool, greedy: bool, empty: str, what: str, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> tuple:
    ...
def exact_sum(values: typing.Annotated[numpy.typing.ArrayLike, numpy.float64]) -> typing.Any:
    """
    The exact sum of the values as an int, in units of 2**-1074 (a float when one is NaN or infinite).
    """
def flatten_ragged(refs: collections.abc.Sequence, name: str) -> tuple:
    """
    Ragged references -> (flat list, segment offsets); the outer sequence is checked by the caller.
    """
def fluency_from_probabilities(hyp_prob: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], ref_prob: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], segment_offsets: typing.Annotated[numpy.typing.ArrayLike, numpy.uint64], combine: str) -> numpy.typing.NDArray[numpy.float64]:
    """
    FM per hypothesis: min/max ratio of its probability and each reference's, combined.
    """
def format_score_rows(first_id: typing.SupportsInt | typing.SupportsIndex, columns: collections.abc.Sequence[typing.Annotated[numpy.typing.ArrayLike, numpy.float64]], json_keys: collections.abc.Sequence[str], format: str, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> bytes:
    """
    Score lines (jsonl records or tsv rows, numbers as '%.9g') of one chunk, as UTF-8 bytes.
    """
def get_limits() -> dict:
    ...
def is_non_ascii_punctuation(code_point: typing.SupportsInt | typing.SupportsIndex) -> bool:
    """
    Whether the amfm preset removes this non-ASCII character as punctuation.
    """
def line_start_offsets(path: str, every: typing.SupportsInt | typing.SupportsIndex) -> tuple[numpy.typing.NDArray[numpy.uint64], int]:
    """
    (byte offsets where lines 0, every, 2*every, ... start, number of lines) of a file
    """
def merge_ngram_counts(first: NgramCounts, second: NgramCounts, workers: typing.SupportsInt | typing.SupportsIndex = -1) -> NgramCounts:
    """
    The counts of first's sentences followed by second's (see lm_count_merge.hpp)
    """
def meteor_corpus_score(totals: typing.Annotated[numpy.typing.ArrayLike, numpy.float64]) -> float:
    """
    METEOR of summed corpus statistics (the jar's 23, as MeteorReferences.score returns).
    """
def meteor_normalize(line: str, resources: MeteorResources | None = None) -> list[str]:
    """
    The words METEOR 1.5 (-norm, English) aligns for one line.
    """
def meteor_stem(word: str) -> str:
    """
    Snowball English stem of one word.
    """
def resolve_workers(workers: typing.SupportsInt | typing.SupportsIndex) -> int:
    ...
def rouge_ids(hyp_ids: typing.Annotated[numpy.typing.ArrayLike, numpy.uint64], hyp_offsets: typing.Annotated[numpy.typing.ArrayLike, numpy.uint64], ref_ids: typing.Annotated[numpy.typing.ArrayLike, numpy.uint64], ref_offsets: typing.Annotated[numpy.typing.ArrayLike, numpy.uint64], segment_offsets: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], types: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], workers: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    ...
def rouge_l(hyps: EncodedHypotheses, refs: ReferenceSet, beta: typing.SupportsFloat | typing.SupportsIndex, multi_ref: str, workers: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    ...
def rouge_l_split_on_spaces(hyp_tokens: TokenSequences, ref_tokens: TokenSequences, segment_offsets: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], beta: typing.SupportsFloat | typing.SupportsIndex, multi_ref: str, workers: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    ...
def rouge_l_text(hyps: typing.Any, flat_refs: typing.Any, segment_offsets: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], tokenizer: Tokenizer, split_like_pycoco: bool, beta: typing.SupportsFloat | typing.SupportsIndex, multi_ref: str, workers: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    """
    ROUGE-L straight from text (one-shot: no reference tables kept).
    """
def rouge_pairwise(candidates: typing.Any, references: typing.Any, tokenizer: Tokenizer, type: typing.SupportsInt | typing.SupportsIndex, workers: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float32]:
    ...
@typing.overload
def rouge_score(hyps: typing.Any, refs: RougeDocuments, segment_offsets: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], tokenizer: Tokenizer, types: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], workers: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    """
    rouge-score's ROUGE against prepared references.
    """
@typing.overload
def rouge_score(hyps: typing.Any, flat_refs: typing.Any, segment_offsets: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], tokenizer: Tokenizer, types: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], workers: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    """
    rouge-score's ROUGE: [n, types, 3] precision, recall, F1 of the best reference per type.
    """
@typing.overload
def sacrebleu(hyps: typing.Any, refs: TokenIdBatch, segment_offsets: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], tokenizer: Tokenizer, max_order: typing.SupportsInt | typing.SupportsIndex, smooth: str, smooth_value: typing.SupportsFloat | typing.SupportsIndex, effective_order: bool, workers: typing.SupportsInt | typing.SupportsIndex) -> tuple:
    """
    sacrebleu's BLEU against prepared references.
    """
@typing.overload
def sacrebleu(hyps: typing.Any, flat_refs: typing.Any, segment_offsets: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], tokenizer: Tokenizer, max_order: typing.SupportsInt | typing.SupportsIndex, smooth: str, smooth_value: typing.SupportsFloat | typing.SupportsIndex, effective_order: bool, workers: typing.SupportsInt | typing.SupportsIndex) -> tuple:
    """
    sacrebleu's BLEU: (sentence scores [n] on 0..100, per-segment statistics).
    """
def sacrebleu_corpus(hyp_len: typing.SupportsFloat | typing.SupportsIndex, ref_len: typing.SupportsFloat | typing.SupportsIndex, guess: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], correct: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], smooth: str, smooth_value: typing.SupportsFloat | typing.SupportsIndex, effective_order: bool) -> float:
    ...
def sacrebleu_pairwise(candidates: typing.Any, references: typing.Any, tokenizer: Tokenizer, max_order: typing.SupportsInt | typing.SupportsIndex, smooth: str, smooth_value: typing.SupportsFloat | typing.SupportsIndex, effective_order: bool, workers: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float32]:
    ...
def self_bleu(texts: typing.Any, tokenizer: Tokenizer, max_order: typing.SupportsInt | typing.SupportsIndex, epsilon: typing.SupportsFloat | typing.SupportsIndex, workers: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    """
    Self-BLEU of each text against the others (NLTK method1).
    """
def set_limits(max_line_bytes: typing.SupportsInt | typing.SupportsIndex, meteor_max_candidates: typing.SupportsInt | typing.SupportsIndex) -> None:
    ...
def split_on_spaces(texts: typing.Any, lowercase: bool, workers: typing.SupportsInt | typing.SupportsIndex) -> TokenSequences:
    """
    Texts stripped, then split on single spaces (pycocoevalcap's ROUGE-L view of nlg-eval's lines).
    """
def vector_cache_is_current(cache_path: str, source: str, format: str) -> bool:
    ...
def write_file_atomic(path: str, data: bytes) -> None:
    ...
MAX_NGRAM_ORDER: int = 16
unicode_punctuation_version: str = '14.0.0'
