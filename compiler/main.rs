//! The `ssc` binary: see [`ssc::cli`].

fn main() {
    ssc::cli::main()
}
