//! Helpers for the cross-tool tests in `tests/tests/`: locating the sample corpus and running
//! real external tools (GNU gzip, pigz, igzip, libdeflate-gzip, Python) on byte buffers.
