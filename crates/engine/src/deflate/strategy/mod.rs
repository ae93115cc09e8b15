//! One parser per tier; `super::LevelRow` picks one per level.
pub mod dp;
pub mod fast;
pub mod huffman_only;
pub mod lazy;
pub mod optimal;
pub mod prices;
pub mod rle;
pub mod stored;
