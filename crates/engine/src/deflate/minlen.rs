//! The shortest match worth taking, from how cheap literals are; and whether data is text-like
//! enough for five-byte hash keys ([`long_keys`]).
//!
//! A match of length L replaces L literals. When the data uses few byte values (DNA, digits,
//! sparse tables), a literal costs few bits and a short match, with its length and distance
//! codes, costs more than the literals it replaces. The lazy parsers therefore ask for at least
//! [`from_counts`] bytes over a [`sample`]: the smallest L with L * log2(alphabet) >
//! [`MATCH_BITS`], between 3 and 9, where the alphabet is the byte values seen more than once
//! per 1024 literals (the idea of libdeflate's minimum-length choice). The order-0 entropy was
//! tried instead: it is pulled down by one very common byte (zeros in executables) and cost 3%
//! on `sum`.
//!
//! The estimate comes from a 4 KiB sample spread over each segment and holds for the whole
//! segment. It depends only on the data, so output stays deterministic. (Updating it from each
//! finished block's literal counts made the parse loop 0.5-1% slower; sampling only the first
//! 4 KiB lost 0.2% on a tar of Python sources, whose segments can start with a stretch of few
//! byte values.) Text (60-90 byte values) gets 4 or 3, which the match finders give anyway,
//! so only small-alphabet data changes: on the corpus kppkn.gtb goes from 4.605 to
//! 4.699 at level 4 and from 4.758 to 4.808 at level 6; a synthetic soft-masked FASTA from
//! 2.943 to 2.972 and from 2.976 to 3.002 (5-15% slower there: more positions are searched
//! when fewer matches qualify). Every other corpus file and a tar of /usr are unchanged.
#![forbid(unsafe_code)]

/// Typical cost in bits of a short match (length code, distance code and extra bits).
const MATCH_BITS: u32 = 18;
/// Below this many literals the counts say too little, and the usual minimum of 3 applies.
const MIN_SAMPLE: u32 = 512;
/// Bytes of a segment sampled, in [`RUNS`] runs spread over it.
const SAMPLE_BYTES: usize = 4096;
/// Runs the sample is taken in.
const RUNS: usize = 64;

/// Most byte values in common use for data to count as text-like: the match finders key it
/// by five bytes instead of four ([`long_keys`]), and data that is not gets three-byte matches
/// (`matchfind.rs`, level 10). Per 256 KiB segment, the corpus's texts and this host's HTML,
/// JSON, XML, JavaScript, C, Perl and Python use 35-72 values; UTF-8 Korean 96-104, Japanese
/// and Chinese 104-122; `sum`, an executable, 95; a tar of executables 101-256, JPEG and PDF
/// 255-256. At 96 `sum` and Korean counted as text; as data that is not, `sum` compresses
/// 2.2-3.9% smaller at levels 2-10 (0.5% larger at level 1), Rust by Example in Korean
/// 0.03-0.6% smaller at levels 1-9, kennedy.xls 1.3% smaller at level 10 (segments near the
/// line), and nothing else on the corpus changes.
const TEXT_VALUES: u64 = 80;

/// Text shorter than this (new data in a segment) keeps four-byte keys in every match finder:
/// a short input has few repeats, its chains are short whatever their keys, and its four-byte
/// matches weigh more. Five-byte keys cost the corpus's files under 32 KiB up to 1.7% at level
/// 2 and 1% at level 1. The lazy levels, whose five-byte chains keep the nearest four-byte
/// match in a head, kept their ratio on those files either way (fields.c, grammar.lsp, xargs.1
/// and cp.html together: level 4 -0.17%, 5 -0.03%, 6 0.00%, 7 +0.12%, 8 +0.25% with four-byte
/// chains) but ran 11-17% faster at levels 4-7 on four-byte chains (interleaved runs): the
/// head's upkeep and the wider hash buy nothing on chains that short.
const SHORT_TEXT: usize = 32 << 10;

/// Byte values seen more than once per 1024 literals counted in `freq`: the alphabet a literal
/// is coded in; `None` when there are too few to tell.
fn alphabet(freq: &[u32]) -> Option<u64> {
    let total: u32 = freq.iter().sum();
    if total < MIN_SAMPLE {
        return None;
    }
    Some(freq.iter().filter(|&&c| c > total >> 10).count() as u64)
}

/// True when the data counted in `freq` (a [`sample`]) is text-like: at most [`TEXT_VALUES`]
/// byte values in common use. False when there are too few counts to tell.
pub fn text_like(freq: &[u32; 256]) -> bool {
    alphabet(freq).is_some_and(|used| used <= TEXT_VALUES)
}

/// True when three-byte matches pay in data whose [`sample`] counts are `freq`, with a shortest
/// match of `min`: the minimum is three (not raised by a small alphabet, nor Z_FILTERED's six)
/// and the data is not text-like. The chain levels then keep a three-byte short head
/// (`matchfind.rs`), and levels 10 and 11 the binary trees' three-byte table.
pub fn three_byte_matches(min: usize, freq: &[u32; 256]) -> bool {
    min == 3 && !text_like(freq)
}

/// True when a match finder should key `len` bytes of new data by five bytes instead of four:
/// when there are at least [`SHORT_TEXT`] of them and they are text-like (at most
/// [`TEXT_VALUES`] byte values in common use in `freq`, their [`sample`], taken only if
/// needed): the matches of text are rarely worth taking at three bytes, and a hash of five
/// bytes finds the longer ones sooner (`matchfind.rs`, `strategy/fast.rs`). False when there
/// are too few counts to tell.
pub fn long_keys(len: usize, freq: impl FnOnce() -> [u32; 256]) -> bool {
    len >= SHORT_TEXT && text_like(&freq())
}

/// The shortest worthwhile match for literals counted in `freq` (256 byte counts), or `None`
/// when there are too few to tell.
pub fn from_counts(freq: &[u32], depth: u32) -> Option<usize> {
    let used = alphabet(freq)?;
    // A shallow search rarely finds long matches: asking for one would leave only literals.
    let cap = match depth {
        0..=9 => 5,
        10..=15 => 7,
        _ => 9,
    };
    // The smallest L with L * log2(used) > MATCH_BITS, in integers (used^L > 2^MATCH_BITS)
    // so that every platform picks the same L.
    let mut len = 3;
    while len < cap && used.pow(len) <= 1 << MATCH_BITS {
        len += 1;
    }
    Some(len as usize)
}

/// Byte counts of 64 runs of 64 bytes spread over `data` (all of it when shorter).
pub fn sample(data: &[u8]) -> [u32; 256] {
    let mut freq = [0u32; 256];
    if data.len() <= SAMPLE_BYTES {
        for &b in data {
            freq[b as usize] += 1;
        }
    } else {
        let stride = data.len() / RUNS;
        for r in 0..RUNS {
            for &b in &data[r * stride..r * stride + SAMPLE_BYTES / RUNS] {
                freq[b as usize] += 1;
            }
        }
    }
    freq
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortest worthwhile match for `data`, as the lazy parser takes it.
    fn from_sample(data: &[u8], depth: u32) -> usize {
        from_counts(&sample(data), depth).unwrap_or(3)
    }

    /// Text takes five-byte keys; data using most byte values, and too little data to tell,
    /// four.
    #[test]
    fn text_like_data_gets_long_keys() {
        let lcg = |i: u32| i.wrapping_mul(2_654_435_761) >> 13;
        let keys = |d: &[u8]| long_keys(d.len(), || sample(d));
        // Up to TEXT_VALUES byte values in use is text; a few more is not.
        let spread = |n: u64| -> Vec<u8> {
            (0..300_000)
                .map(|i| b' ' + (lcg(i) as u64 % n) as u8)
                .collect()
        };
        let text = spread(TEXT_VALUES);
        assert!(keys(&text));
        assert!(!keys(&spread(TEXT_VALUES + 4)));
        let bytes: Vec<u8> = (0..300_000).map(|i| lcg(i) as u8).collect();
        assert!(!keys(&bytes));
        assert!(!keys(&text[..500]));
        // Short text keeps four-byte keys.
        assert!(!keys(&text[..SHORT_TEXT - 1]));
        assert!(keys(&text[..SHORT_TEXT]));
    }

    #[test]
    fn smaller_alphabets_ask_for_longer_matches() {
        let lcg = |i: u32| i.wrapping_mul(2_654_435_761) >> 13;
        // Two bits per literal: L * 2 > 18 from L = 10, capped at 9.
        let dna: Vec<u8> = (0..5000).map(|i| b"ACGT"[(lcg(i) % 4) as usize]).collect();
        assert_eq!(from_sample(&dna, 16), 9);
        // A shallow search caps it.
        assert_eq!(from_sample(&dna, 12), 7);
        assert_eq!(from_sample(&dna, 6), 5);
        // Sixteen values, four bits: 5.
        let hex: Vec<u8> = (0..5000)
            .map(|i| b"0123456789abcdef"[(lcg(i) % 16) as usize])
            .collect();
        assert_eq!(from_sample(&hex, 16), 5);
        // Text-like (64 values, six bits): 4. All 256 values: 3.
        let text: Vec<u8> = (0..5000).map(|i| b'0' + (lcg(i) % 64) as u8).collect();
        assert_eq!(from_sample(&text, 16), 4);
        let bytes: Vec<u8> = (0..5000).map(|i| lcg(i) as u8).collect();
        assert_eq!(from_sample(&bytes, 16), 3);
        // Too few literals to tell.
        assert_eq!(from_sample(b"AAAA", 16), 3);
        assert_eq!(from_counts(&[1; 256], 16), None);
        // Values seen once in 1024 or less are outliers, not the alphabet.
        let mut freq = [0u32; 256];
        freq[..4].fill(1000);
        freq[4..].fill(3);
        assert_eq!(from_counts(&freq, 16), Some(9));
    }
}
