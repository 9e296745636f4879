//! Writes the hostile program shapes of `warpjit::testgen::hostile` as self-checking traces, each
//! program as large as fits a size (by default the 4 MiB a trace's programs may hold), for
//! `tests/load/measure.sh` to time.
//!
//! ```sh
//! cargo run --release --features testgen --example load_shapes -- DIR [BYTES] [SHAPE...]
//! ```

use warpjit::testgen::hostile::Shape;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first() else {
        eprintln!("usage: load_shapes DIR [BYTES] [SHAPE...]");
        std::process::exit(64);
    };
    let bytes = args
        .get(1)
        .and_then(|b| b.parse::<usize>().ok())
        .unwrap_or(4 << 20);
    let only: Vec<&str> = args.iter().skip(2).map(String::as_str).collect();
    for shape in Shape::ALL {
        if !only.is_empty() && !only.contains(&shape.name()) {
            continue;
        }
        let b = shape.build_within(bytes);
        match b.write(std::path::Path::new(dir)) {
            Ok(path) => println!(
                "{} {} {} {}",
                shape.name(),
                b.n,
                b.text.len(),
                path.display()
            ),
            Err(e) => {
                eprintln!("{dir}: {e}");
                std::process::exit(1);
            }
        }
    }
}
