//! The `ssc` binary: see [`ssc_cli::cli`].

fn main() {
    ssc_cli::cli::main()
}
