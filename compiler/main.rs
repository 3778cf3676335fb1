use std::io::Read;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let mut text = String::new();
    std::fs::File::open(&path)
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    let file = ssc::front::diagnostics::SourceFile::new(path, text.clone());
    match ssc::front::syntax::parse(&text) {
        Ok(d) => print!("{}", ssc::back::description::print(&d)),
        Err(e) => eprint!("{}", ssc::front::diagnostics::render(&e, &file)),
    }
}
