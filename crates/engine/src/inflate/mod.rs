//! DEFLATE decoding (RFC 1951) with the raw, zlib and gzip containers.
