pub mod memgen;
pub mod sync_sets;
