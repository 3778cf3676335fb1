pub mod memgen;
