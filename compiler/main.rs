//! The `ssc` binary: see [`ssc::cli`].

fn main() {
    std::process::exit(ssc::cli::run(std::env::args().collect()));
}
