//! The shortest match worth taking, from how cheap literals are; and whether data is text-like
//! enough for five-byte hash keys ([`long_keys`]).
//!
//! A match of length L replaces L literals. When the data uses few byte values (DNA, digits,
//! sparse tables), a literal costs few bits and a short match, with its length and distance
//! codes, costs more than the literals it replaces. The chain parsers (levels 2-9) therefore
//! ask for at least [`from_counts`] bytes over a [`sample`]: the smallest L with
//! L * log2(alphabet) > [`MATCH_BITS`], from 3 up to [`MAX_MIN`], where the alphabet is the
//! byte values seen more than once per 1024 literals (the idea of libdeflate's minimum-length
//! choice). The order-0 entropy was tried instead: it is pulled down by one very common byte
//! (zeros in executables) and cost 3% on `sum`.
//!
//! The estimate comes from a 4 KiB sample spread over each segment and holds for the whole
//! segment. It depends only on the data, so output stays deterministic. (Updating it from each
//! finished block's literal counts made the parse loop 0.5-1% slower; sampling only the first
//! 4 KiB lost 0.2% on a tar of Python sources, whose segments can start with a stretch of few
//! byte values.) Text (60-90 byte values) gets 4 or 3, which the match finders give anyway,
//! so mostly small-alphabet data changes: on the corpus kppkn.gtb went from 4.605 to 4.699 at
//! level 4 and from 4.758 to 4.808 at level 6 when this was introduced.
//!
//! On DNA the minimum was too low, and capped lower still for shallow searches (5 below depth
//! 10, 7 below 16: "a shallow search rarely finds long matches, asking for one would leave
//! only literals"). Only literals is what DNA needs: four bases take about two bits each, and
//! a short match found among random bases is a far one that costs more than the literals it
//! replaces. Our levels 4-9 gave genomic data 1-11% more bytes than libdeflate's, and more
//! than Huffman coding alone (random bases, 3.512): ratio at levels 4 / 6 / 9, before -> now
//! (libdeflate): C. elegans FASTA (htslib's `test/ce.fa`) 3.400 / 3.531 / 3.672 -> 3.782 /
//! 3.789 / 3.778 (3.669 / 3.796 / 3.776); SAM reads (`test/ce#large_seq.sam`) 6.305 / 6.470 /
//! 6.813 -> 6.722 / 6.760 / 6.899 (6.820 / 6.873 / 6.865); 8 MB of random bases in 60-byte
//! lines 3.210 / 3.343 / 3.454 -> 3.541 / 3.549 / 3.579 (3.552 / 3.565 / 3.580). The per-file
//! corpus changed by under 0.003% at levels 2-9 (level 6 3,171,866 -> 3,171,923 bytes, level
//! 4 3,217,068 -> 3,216,984), at the same speed. Without the cap alone DNA got half of that;
//! the other half is [`MATCH_BITS`] at 19 rather than 18 (one more base for DNA; 20 lost
//! 0.015% on the corpus, at kennedy.xls and kppkn.gtb).
#![forbid(unsafe_code)]

use super::huffman::{count_into_sets, sum_sets};

/// Typical cost in bits of a short match (length code, distance code and extra bits).
const MATCH_BITS: u32 = 19;
/// The longest minimum: for one or two byte values in use (a run, a text of zeros and ones),
/// where no length would pay by [`MATCH_BITS`].
const MAX_MIN: u32 = 12;
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
///
/// The count alone takes some data that is not text for text: 16-bit samples (every other byte
/// zero) and images with flat areas use 60-80 values in a 256 KiB segment. Asking also that no
/// value take more than 40% of the sample (text's commonest byte, the space, takes 13-22%)
/// gave 4 MB of 16-bit detector frames four-byte keys: level 1 2.145 -> 2.214 and 1.2x as
/// fast, levels 2 and 3 2.229 / 2.245 -> 2.297 / 2.326 (libdeflate -2 / -3 2.298 / 2.327), but
/// levels 4-6 0.4-0.6% less; and it cost the corpus 500-1,730 bytes at levels 1-6 (ptt5, 84%
/// zeros, and kennedy.xls, 46%, compress better on five-byte keys). Not kept.
const TEXT_VALUES: u64 = 80;

/// Text shorter than this (new data in a segment) keeps four-byte keys in every match finder:
/// a short input has few repeats, its chains are short whatever their keys, and its four-byte
/// matches weigh more. Five-byte keys cost the corpus's files under 32 KiB up to 1.7% at level
/// 2 and 1% at level 1. The lazy levels, whose five-byte chains keep the nearest four-byte
/// match in a head, kept their ratio on those files either way (fields.c, grammar.lsp, xargs.1
/// and cp.html together: level 4 -0.17%, 5 -0.03%, 6 0.00%, 7 +0.12%, 8 +0.25% with four-byte
/// chains) but ran 11-17% faster at levels 4-7 on four-byte chains (interleaved runs): the
/// head's upkeep and the wider hash buy nothing on chains that short.
///
/// JSON is the exception: 32 pieces of a JSON log, 512 bytes to 16 KiB each (eight of each
/// size), compress at level 6 to 25,532 bytes (with the extended walks of `matchfind.rs`),
/// libdeflate -6 to 24,775. Five-byte chains gave 24,897 (before those walks) at 1.33x the
/// time; the same pieces of HTML, text, SAM, a spreadsheet and a protobuf gained 0-1.7% at
/// 1.04-1.27x. Deeper walks on the four-byte chains of short text (the depths before the rows
/// were chosen for five-byte chains, 1.6x) gave 25,065 at the same time, the others 0.2-0.6%
/// at 1.01-1.12x; 2.5x gave 24,779 at 1.05x, the others 0.2-1.0% at 1.03-1.23x. Not kept:
/// each is a step along level 6's curve, as level 7 is (before the extended walks, the 16 KiB
/// pieces gave 16,514 bytes at level 7 against 17,592 at level 6).
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
pub fn from_counts(freq: &[u32]) -> Option<usize> {
    let used = alphabet(freq)?;
    // The smallest L with L * log2(used) > MATCH_BITS, in integers (used^L > 2^MATCH_BITS)
    // so that every platform picks the same L.
    let mut len = 3;
    while len < MAX_MIN && used.pow(len) <= 1 << MATCH_BITS {
        len += 1;
    }
    Some(len as usize)
}

/// Byte counts of 64 runs of 64 bytes spread over `data` (all of it when shorter).
///
/// Counted in interleaved sets ([`count_into_sets`]): with one, counting a short input's 4 KiB
/// took a tenth of level 6's time on it (grammar.lsp, xargs.1). The runs' first loads miss
/// the caches (perf puts 0.7% of level 6's time on bible.txt here, nearly all on them);
/// prefetching every run's two cache lines before counting measured 0.99x / 1.02x / 1.00x
/// the time at levels 2 / 6 / 9 (per-file corpus, alternating runs). Not kept.
pub fn sample(data: &[u8]) -> [u32; 256] {
    let mut sets = [[0u32; 256]; 4];
    if data.len() <= SAMPLE_BYTES {
        count_into_sets(&mut sets, data);
    } else {
        let stride = data.len() / RUNS;
        for r in 0..RUNS {
            count_into_sets(
                &mut sets,
                &data[r * stride..r * stride + SAMPLE_BYTES / RUNS],
            );
        }
    }
    sum_sets(&sets)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counts are those of the bytes sampled, one by one: all of a short input, 64 runs
    /// of 64 bytes of a longer one; whatever is left after the last whole group of four too.
    #[test]
    fn sample_counts_every_sampled_byte() {
        let mut rnd = crate::deflate::bytes::xorshift(0x5A3F_1E77_0C0F_FEE5);
        let data: Vec<u8> = (0..100_003).map(|_| (rnd() % 7) as u8 * 37).collect();
        for len in [0, 1, 3, 4, 5, 63, 4095, 4096, 4097, 9_999, 100_003] {
            let d = &data[..len];
            let mut want = [0u32; 256];
            let runs: Vec<&[u8]> = if len <= SAMPLE_BYTES {
                vec![d]
            } else {
                let stride = len / RUNS;
                (0..RUNS)
                    .map(|r| &d[r * stride..r * stride + SAMPLE_BYTES / RUNS])
                    .collect()
            };
            for &b in runs.concat().iter() {
                want[b as usize] += 1;
            }
            assert_eq!(sample(d), want, "length {len}");
        }
    }

    /// The shortest worthwhile match for `data`, as the chain parsers take it.
    fn from_sample(data: &[u8]) -> usize {
        from_counts(&sample(data)).unwrap_or(3)
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
        // Two bits per literal: L * 2 > 19 from L = 10.
        let dna: Vec<u8> = (0..5000).map(|i| b"ACGT"[(lcg(i) % 4) as usize]).collect();
        assert_eq!(from_sample(&dna), 10);
        // Five values (the bases and a line end): 5^9 > 2^19.
        let lines: Vec<u8> = (0..5000)
            .map(|i| if i % 61 == 60 { b'\n' } else { dna[i as usize] })
            .collect();
        assert_eq!(from_sample(&lines), 9);
        // Two values: as long as the cap allows.
        let bits: Vec<u8> = (0..5000).map(|i| b"01"[(lcg(i) % 2) as usize]).collect();
        assert_eq!(from_sample(&bits), MAX_MIN as usize);
        // Sixteen values, four bits: 5.
        let hex: Vec<u8> = (0..5000)
            .map(|i| b"0123456789abcdef"[(lcg(i) % 16) as usize])
            .collect();
        assert_eq!(from_sample(&hex), 5);
        // Text-like (64 values, six bits): 4. All 256 values: 3.
        let text: Vec<u8> = (0..5000).map(|i| b'0' + (lcg(i) % 64) as u8).collect();
        assert_eq!(from_sample(&text), 4);
        let bytes: Vec<u8> = (0..5000).map(|i| lcg(i) as u8).collect();
        assert_eq!(from_sample(&bytes), 3);
        // Too few literals to tell.
        assert_eq!(from_sample(b"AAAA"), 3);
        assert_eq!(from_counts(&[1; 256]), None);
        // Values seen once in 1024 or less are outliers, not the alphabet.
        let mut freq = [0u32; 256];
        freq[..4].fill(1000);
        freq[4..].fill(3);
        assert_eq!(from_counts(&freq), Some(10));
    }
}
