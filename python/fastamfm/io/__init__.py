"""Files in and out: ``readers`` (the input layouts users have, every error naming
file:line), ``atomic`` (writers that never leave debris), ``signals`` (cleaning up on
SIGTERM, threads started safely), ``checked_file`` (one checksummed file of settings and
arrays, never pickle), ``cache_dir`` (where fastamfm keeps what it derives).

The names below are the package's public surface (``fastamfm.io.read_lines`` ...)."""
from __future__ import annotations

from .atomic import (
                      AtomicWriter,
                      atomic_directory,
                      discard_on_input_error,
                      write_text_atomic,
)
from .readers import (
                      DEFAULT_CHUNK_LINES,
                      check_record,
                      check_text_field,
                      iter_json_lines,
                      iter_jsonl_chunks,
                      iter_jsonl_records,
                      iter_parallel_chunks,
                      read_dstc_json,
                      read_json_file,
                      read_jsonl,
                      read_line_columns,
                      read_lines,
                      read_numbers,
                      read_parallel_files,
                      relocate_chunk_error,
)
from .signals import Terminated, cleanup_on_signals, join_if_started, start_thread

__all__ = ["AtomicWriter", "DEFAULT_CHUNK_LINES", "Terminated", "atomic_directory", "check_record",
           "check_text_field", "cleanup_on_signals", "discard_on_input_error", "iter_json_lines",
           "iter_jsonl_chunks", "iter_jsonl_records", "iter_parallel_chunks", "join_if_started", "read_dstc_json",
           "read_json_file", "read_jsonl", "read_line_columns", "read_lines", "read_numbers", "read_parallel_files",
           "relocate_chunk_error", "start_thread", "write_text_atomic"]
