//! A writer of System V `pack` (.z) files, which no Debian package provides, for the tests of
//! reading them: GNU gzip decodes what it writes (the tests check that first), so it stands
//! for the real thing. Huffman code lengths from the byte counts plus an end code of count 0,
//! which therefore gets one of the longest codes; the layout is the one gzip's `unpack.c`
//! reads (see `crates/cli/src/pack.rs`).

/// `data` as one packed member. Panics on empty data (pack refuses it too) or if a code would
/// be longer than 24 bits (pack's limit), which needs a far more skewed input than any test
/// uses.
pub fn pack(data: &[u8]) -> Vec<u8> {
    const EOB: usize = 256;
    let mut count = [0u64; 257];
    for &b in data {
        count[b as usize] += 1;
    }
    // Huffman over the used bytes and the end code, of count 0 (key 0, as byte 0's).
    let mut leaves: Vec<(u64, usize, usize)> = (0..256)
        .filter(|&s| count[s] > 0)
        .map(|s| (count[s], s, s))
        .collect();
    leaves.push((0, 0, EOB));
    let depth = crate::huffman_depths(&leaves, 257);
    let max_len = depth.iter().copied().max().unwrap();
    assert!(max_len <= 24 && depth[EOB] == max_len, "too deep for pack");
    // Leaves of each length in byte order; the end code last among the longest.
    let mut by_len = vec![Vec::new(); max_len + 1];
    for s in 0..256 {
        if count[s] > 0 {
            by_len[depth[s]].push(s);
        }
    }
    by_len[max_len].push(EOB);
    // Codes: at each length the internal nodes take the lowest values, the leaves follow.
    let mut parents = vec![0usize; max_len + 1];
    let mut nodes = 0;
    for len in (1..=max_len).rev() {
        nodes >>= 1;
        parents[len] = nodes;
        nodes += by_len[len].len();
    }
    let mut code = [(0u32, 0usize); 257];
    for (len, leaves) in by_len.iter().enumerate() {
        for (k, &s) in leaves.iter().enumerate() {
            code[s] = ((parents[len] + k) as u32, len);
        }
    }
    let mut out = vec![0x1f, 0x1e];
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.push(max_len as u8);
    for (len, leaves) in by_len.iter().enumerate().skip(1) {
        out.push((leaves.len() - if len == max_len { 2 } else { 0 }) as u8);
    }
    for leaves in &by_len {
        out.extend(leaves.iter().filter(|&&s| s != EOB).map(|&s| s as u8));
    }
    let (mut acc, mut n) = (0u64, 0u32);
    for s in data.iter().map(|&b| b as usize).chain([EOB]) {
        let (c, len) = code[s];
        acc = acc << len | c as u64;
        n += len as u32;
        while n >= 8 {
            n -= 8;
            out.push((acc >> n) as u8);
        }
        acc &= (1 << n) - 1;
    }
    if n > 0 {
        out.push((acc << (8 - n)) as u8);
    }
    out
}
