//! A program's image files: `--input [NAME=]PATH` and `--output DIR`
//! (runtime-c/README.md "Image files").
//!
//! `tests/in/images.ssc` has three external inputs and outputs (ushort,
//! float, uchar). Frames written here go through the program and come back
//! as files with the values the built-ins compute; every scheduler prints
//! the same checksum on the same files, and so does the library's Python
//! module fed the same frames; every file of the bad-image corpus
//! (`tests/images/bad/`) and every wrong `--input`/`--output` gets its
//! clear error and exit code, never a crash and never a silently wrong
//! image.

mod sliding;

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::*;

const W: usize = 64;
const H: usize = 48;

fn chain() -> PathBuf {
    root("tests/in/images.ssc")
}

/// The program of `tests/in/images.ssc` under these `ssc build` flags.
fn program(tag: &str, flags: &str) -> PathBuf {
    let dir = scratch(&format!("images-{tag}"));
    build(gcc(), &Case::new(chain(), flags), &dir).unwrap_or_else(|e| panic!("{e}"))
}

fn run(exe: &Path, args: &[&str]) -> Ran {
    let dir = exe.parent().unwrap();
    run_in(&[], exe, args, &[], dir, RUN_DEADLINE).unwrap_or_else(|e| panic!("{e}"))
}

// ---- frames -------------------------------------------------------------------

fn pgm16(v: &[u16], maxval: u16) -> Vec<u8> {
    let mut b = format!("P5\n{W} {H}\n{maxval}\n").into_bytes();
    for x in v {
        b.extend_from_slice(&x.to_be_bytes());
    }
    b
}

fn pgm8(v: &[u8]) -> Vec<u8> {
    let mut b = format!("P5\n{W} {H}\n255\n").into_bytes();
    b.extend_from_slice(v);
    b
}

/// PFM, little endian, bottom row first.
fn pfm(v: &[f32]) -> Vec<u8> {
    let mut b = format!("Pf\n{W} {H}\n-1.0\n").into_bytes();
    for y in (0..H).rev() {
        for x in &v[y * W..(y + 1) * W] {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    b
}

fn image16(k: usize) -> Vec<u16> {
    (0..W * H)
        .map(|i| ((i % W) * 997 + (i / W) * 131 + k * 7919) as u16)
        .collect()
}

fn mask8(k: usize) -> Vec<u8> {
    (0..W * H).map(|i| ((i * 7 + k * 31) % 256) as u8).collect()
}

/// A constant frame: the 3×3 mean gives it back.
fn flat(k: usize) -> Vec<f32> {
    vec![k as f32 + 0.5; W * H]
}

/// Three folders of `frames` frames each: image (16-bit PGM), flat (PFM),
/// mask (8-bit PGM).
fn frame_folders(dir: &Path, frames: usize) -> [PathBuf; 3] {
    let f = ["image", "flat", "mask"].map(|n| dir.join(n));
    for d in &f {
        std::fs::create_dir_all(d).unwrap();
    }
    for k in 0..frames {
        std::fs::write(f[0].join(format!("f{k:02}.pgm")), pgm16(&image16(k), 65535)).unwrap();
        std::fs::write(f[1].join(format!("f{k:02}.pfm")), pfm(&flat(k))).unwrap();
        std::fs::write(f[2].join(format!("f{k:02}.pgm")), pgm8(&mask8(k))).unwrap();
    }
    f
}

fn input_args(f: &[PathBuf; 3]) -> Vec<String> {
    ["image", "flat", "mask"]
        .iter()
        .zip(f)
        .flat_map(|(n, p)| ["--input".to_string(), format!("{n}={}", p.display())])
        .collect()
}

/// The pixels of a PGM or PFM the program wrote (PFM rows put top first).
fn read_back(path: &Path) -> (String, Vec<f64>) {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header_end = b
        .iter()
        .enumerate()
        .filter(|(_, c)| **c == b'\n')
        .nth(2)
        .unwrap()
        .0;
    let header = String::from_utf8_lossy(&b[..header_end]).into_owned();
    let px = &b[header_end + 1..];
    let values = if header.starts_with("Pf") {
        let rows: Vec<Vec<f64>> = px
            .chunks(4 * W)
            .map(|r| {
                r.chunks(4)
                    .map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64)
                    .collect()
            })
            .collect();
        rows.into_iter().rev().flatten().collect()
    } else if header.ends_with("65535") {
        px.chunks(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]) as f64)
            .collect()
    } else {
        px.iter().map(|&c| c as f64).collect()
    };
    (header, values)
}

/// Runs `exe` on `--input INPUT` with `--output OUT`, which must succeed.
fn run_frames(exe: &Path, input: &str, out: &Path) {
    let ran = run(
        exe,
        &["--input", input, "--output", &out.display().to_string()],
    );
    assert!(ran.status.success(), "{}{}", ran.stdout, ran.stderr);
}

// ---- tests --------------------------------------------------------------------

#[test]
fn frames_go_through_the_chain_and_come_back_as_files() {
    let exe = program("roundtrip", "-ts fused 2");
    let dir = scratch("images-roundtrip-frames");
    let f = frame_folders(&dir, 3);
    let out = dir.join("out");
    let mut args = input_args(&f);
    args.extend(["--output".into(), out.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let ran = run(&exe, &args);
    assert!(ran.status.success(), "{}{}", ran.stdout, ran.stderr);
    // Without --iterations, each frame runs once.
    assert!(ran.stdout.contains("iterations: 3 of 3"), "{}", ran.stdout);
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "flatout_0000.pfm",
            "flatout_0001.pfm",
            "flatout_0002.pfm",
            "maskout_0000.pgm",
            "maskout_0001.pgm",
            "maskout_0002.pgm",
            "out_0000.pgm",
            "out_0001.pgm",
            "out_0002.pgm"
        ]
    );
    for k in 0..3 {
        // func_gain: ×1.5, saturated to the type's range.
        let (header, v) = read_back(&out.join(format!("out_{k:04}.pgm")));
        assert_eq!(header, format!("P5\n{W} {H}\n65535"));
        let want: Vec<f64> = image16(k)
            .iter()
            .map(|&x| (x as u32 * 3 / 2).min(65535) as f64)
            .collect();
        assert_eq!(v, want, "frame {k}");
        // func_copy of an 8-bit PGM.
        let (header, v) = read_back(&out.join(format!("maskout_{k:04}.pgm")));
        assert_eq!(header, format!("P5\n{W} {H}\n255"));
        assert_eq!(v, mask8(k).iter().map(|&x| x as f64).collect::<Vec<_>>());
        // func_conv 3×3 of a constant frame is the frame.
        let (header, v) = read_back(&out.join(format!("flatout_{k:04}.pfm")));
        assert_eq!(header, format!("Pf\n{W} {H}\n-1.0"));
        assert!(
            v.iter().all(|&x| (x - (k as f64 + 0.5)).abs() < 1e-5),
            "frame {k}: {:?}",
            &v[..4]
        );
    }
    // An output read back as an input: the program's files are its own format.
    let again = run(
        &exe,
        &[
            "--input",
            &format!("image={}", out.join("out_0001.pgm").display()),
        ],
    );
    assert!(again.status.success(), "{}", again.stderr);
}

#[test]
fn more_iterations_than_frames_cycle_and_a_single_file_is_every_frames() {
    let exe = program("cycle", "-ts reduced 2 -ms reuse");
    let dir = scratch("images-cycle-frames");
    let f = frame_folders(&dir, 2);
    let mut args = input_args(&f);
    // One file for `flat`: the same for every frame (as a gain map is).
    args[3] = format!("flat={}", f[1].join("f01.pfm").display());
    args.extend([
        "--output".into(),
        dir.join("out").display().to_string(),
        "--iterations".into(),
        "9".into(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let ran = run(&exe, &args);
    assert!(ran.status.success(), "{}", ran.stderr);
    assert!(ran.stdout.contains("iterations: 9 of 9"), "{}", ran.stdout);
    let (_, v) = read_back(&dir.join("out/out_0001.pgm"));
    let want: Vec<f64> = image16(1)
        .iter()
        .map(|&x| (x as u32 * 3 / 2).min(65535) as f64)
        .collect();
    assert_eq!(v, want);
    assert!(!dir.join("out/out_0002.pgm").exists());
    for k in 0..2 {
        let (_, v) = read_back(&dir.join(format!("out/flatout_{k:04}.pfm")));
        assert!(v.iter().all(|&x| (x - 1.5).abs() < 1e-5), "frame {k}");
    }
}

/// `--forever` cycles the frames until SIGINT, as more iterations than
/// frames do; after the stop each frame's file holds the outputs of the
/// last iteration that ran on it.
#[test]
fn forever_cycles_the_frames_and_writes_them_after_the_stop() {
    let exe = program("forever", "-ts reduced 2");
    let dir = scratch("images-forever-frames");
    let f = frame_folders(&dir, 2);
    let out = dir.join("out");
    let mut args = input_args(&f);
    args.extend([
        "--output".into(),
        out.display().to_string(),
        "--forever".into(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let ran = run_until_sigint(&exe, &args, &dir, std::time::Duration::from_millis(500));
    assert_eq!(ran.status.code(), Some(0), "{}{}", ran.stdout, ran.stderr);
    let n: u64 = ran
        .stdout
        .lines()
        .find_map(|l| {
            l.strip_prefix("iterations: ")?
                .strip_suffix(" (--forever, stopped by signal)")?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("{}", ran.stdout));
    for k in 0..2 {
        let path = out.join(format!("out_{k:04}.pgm"));
        if (k as u64) >= n {
            assert!(!path.exists(), "frame {k} never ran");
            continue;
        }
        let (_, v) = read_back(&path);
        let want: Vec<f64> = image16(k)
            .iter()
            .map(|&x| (x as u32 * 3 / 2).min(65535) as f64)
            .collect();
        assert_eq!(v, want, "frame {k} after {n} iterations");
    }
}

#[test]
fn every_scheduler_and_the_python_module_print_one_checksum_on_the_same_files() {
    let dir = scratch("images-checksums-frames");
    let f = frame_folders(&dir, 4);
    let args = input_args(&f);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let configs = [
        "-ts simple",
        "-ts barrier",
        "-ts fixed 2",
        "-ts predictable 2",
        "-ts reduced 2 -ms reuse",
        "-ts fused 2",
        "-ts fused 2 --strip-rows 4",
    ];
    let sums = parallel(&configs, |c| {
        let exe = program(&format!("sum-{}", c.replace(' ', "_")), c);
        let ran = run(&exe, &args);
        assert!(ran.status.success(), "{c}: {}", ran.stderr);
        ran.checksum().expect("a checksum").to_string()
    });
    assert!(sums.iter().all(|s| s == &sums[0]), "{configs:?}: {sums:?}");
    // Not the synthetic pattern's checksum: the files were read.
    let synthetic = run(
        &program("sum-synthetic", "-ts fused 2"),
        &["--iterations", "4"],
    );
    assert_ne!(synthetic.checksum(), Some(sums[0].as_str()));

    let Some(python) =
        python_with_numpy("every_scheduler_and_the_python_module_print_one_checksum")
    else {
        return;
    };
    let lib = scratch("images-checksums-library");
    support::fused_library(&chain(), &lib, "-O1");
    let ran = Command::new(python)
        .arg(root("tests/images/check_files.py"))
        .arg(&lib)
        .arg("images")
        .args(args.iter().filter(|a| *a != &"--input"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&ran.stdout);
    assert!(
        ran.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(
        text.contains(&format!("checksum: {}", sums[0])),
        "python: {text}, program: {}",
        sums[0]
    );
}

/// The bad-image corpus: (file, the input it is given to, what the message
/// must say).
const CORPUS: &[(&str, &str, &str)] = &[
    ("empty.pgm", "image", "is empty"),
    (
        "not_an_image.png",
        "image",
        "is not a binary PGM (P5) or PFM (Pf) file",
    ),
    ("ascii.pgm", "image", "is a plain (ASCII) PGM (P2)"),
    ("colour.ppm", "image", "is a colour image (P6)"),
    ("colour.pfm", "flat", "is a colour image (PF)"),
    (
        "no_height.pgm",
        "image",
        "PGM header: the height is missing (the file ends in the header)",
    ),
    (
        "maxval_zero.pgm",
        "image",
        "PGM header: the maxval is outside 1..65535",
    ),
    (
        "maxval_too_big.pgm",
        "image",
        "PGM header: the maxval is outside 1..65535",
    ),
    (
        "truncated.pgm",
        "image",
        "is truncated: the 16-bit PGM needs 6144 bytes of pixels, the file has 3072",
    ),
    (
        "trailing.pgm",
        "image",
        "has 5 bytes after the 16-bit PGM (one image a file)",
    ),
    (
        "wrong_size.pgm",
        "image",
        "is 32x48 pixels (16-bit PGM); input `image` takes 64x48",
    ),
    (
        "above_maxval.pgm",
        "image",
        "pixel (7, 5) is 4096, above the header's maxval 4095",
    ),
    (
        "no_space.pgm",
        "image",
        "PGM header: expected white space after the maxval, found 'x'",
    ),
    (
        "bad_scale.pfm",
        "flat",
        "PFM header: the scale 'abc' is not a non-zero number",
    ),
    (
        "truncated.pfm",
        "flat",
        "is truncated: the PFM needs 12288 bytes of pixels, the file has 12284",
    ),
    (
        "float_into_ushort.pfm",
        "image",
        "is a float image (PFM); input `image` is ushort",
    ),
    (
        "sixteen_into_uchar.pgm",
        "mask",
        "16-bit PGM with maxval 4095; input `mask` is uchar and holds at most 255",
    ),
    (
        "short.raw",
        "image",
        "a raw frame of 6142 bytes; input `image` takes 64x48 ushort = 6144 bytes",
    ),
];

#[test]
fn every_file_of_the_bad_image_corpus_gets_its_clear_error() {
    let exe = program("corpus", "-ts fused 2");
    let files: Vec<String> = std::fs::read_dir(root("tests/images/bad"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(files.len() >= 10);
    for f in &files {
        assert!(
            CORPUS.iter().any(|(c, _, _)| c == f),
            "{f} of tests/images/bad has no expected message"
        );
    }
    for (file, input, want) in CORPUS {
        let path = root("tests/images/bad").join(file);
        let ran = run(&exe, &["--input", &format!("{input}={}", path.display())]);
        assert_eq!(
            ran.status.code(),
            Some(1),
            "{file}: {}{}",
            ran.stdout,
            ran.stderr
        );
        let first = ran.stderr.lines().next().unwrap_or_default();
        let prefix = format!("images: {}: ", path.display());
        assert!(first.starts_with(&prefix), "{file}: {first}");
        assert!(first.contains(want), "{file}: {first}");
        assert!(ran.stdout.is_empty(), "{file}: ran anyway: {}", ran.stdout);
    }
}

/// `--help` names the program's inputs and outputs, each with its type,
/// size and file formats: a user learns that an input is called `image`
/// there, not from the error for a wrong name.
#[test]
fn help_names_every_input_and_output_with_its_type_and_size() {
    let exe = program("help", "-ts reduced 2");
    let ran = run(&exe, &["--help"]);
    assert!(ran.status.success(), "{}", ran.stderr);
    let help = &ran.stdout;
    let section = |title: &str| -> Vec<String> {
        help.lines()
            .skip_while(|l| !l.starts_with(title))
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    };
    let inputs = section("inputs (--input NAME=PATH");
    let outputs = section("outputs (--output DIR");
    assert_eq!(
        inputs,
        [
            "image ushort 64 x 48 (pgm or raw)",
            "flat float 64 x 48 (pfm, pgm or raw)",
            "mask uchar 64 x 48 (pgm or raw)",
        ],
        "{help}"
    );
    assert_eq!(
        outputs,
        [
            "out ushort 64 x 48 (pgm)",
            "flatout float 64 x 48 (pfm)",
            "maskout uchar 64 x 48 (pgm)",
        ],
        "{help}"
    );
    // The options come first, the report's notes last.
    assert!(help.starts_with("usage: "), "{help}");
    assert!(
        help.trim_end()
            .ends_with("only a dump keeps per-iteration records."),
        "{help}"
    );
}

#[test]
fn wrong_paths_and_options_get_clear_errors_and_their_exit_codes() {
    let exe = program("paths", "-ts fused 2");
    let dir = scratch("images-paths-frames");
    let f = frame_folders(&dir, 2);
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let one = f[0].join("f00.pgm");
    let one_frame = dir.join("one");
    std::fs::create_dir_all(&one_frame).unwrap();
    std::fs::copy(f[1].join("f00.pfm"), one_frame.join("f00.pfm")).unwrap();
    // A FIFO is refused before it is opened (opening it would wait for a
    // writer forever), as a character device is.
    let fifo = dir.join("fifo.pgm");
    run_ok(Command::new("mkfifo").arg(&fifo));
    let cases: Vec<(Vec<String>, i32, String)> = vec![
        (
            vec!["--input".into(), format!("image={}", fifo.display())],
            1,
            format!("images: {}: not a regular file", fifo.display()),
        ),
        (
            vec!["--input".into(), "image=/dev/zero".into()],
            1,
            "images: /dev/zero: not a regular file".into(),
        ),
        (
            vec!["--input".into(), "image=/no/such/file.pgm".into()],
            1,
            "images: /no/such/file.pgm: cannot read: No such file or directory".into(),
        ),
        (
            vec!["--input".into(), format!("image={}", empty.display())],
            1,
            format!("images: {}: the folder has no frames", empty.display()),
        ),
        (
            vec![
                "--input".into(),
                format!("image={}", f[0].display()),
                "--input".into(),
                format!("flat={}", one_frame.display()),
            ],
            1,
            "images: --input `flat` gives 1 frame, `image` gives 2: every folder needs the same number"
                .into(),
        ),
        (
            vec![
                "--input".into(),
                format!("image={}", one.display()),
                "--output".into(),
                format!("{}/out", one.display()),
            ],
            1,
            format!("images: --output {}/out: cannot make the folder", one.display()),
        ),
        (
            vec!["--input".into(), "imag=x.pgm".into()],
            2,
            "images: --input imag=x.pgm: no input is named `imag`; the inputs are `image`, `flat`, `mask`"
                .into(),
        ),
        (
            vec!["--input".into(), one.display().to_string()],
            2,
            format!(
                "images: --input {}: name the input as NAME=PATH; the inputs are `image`, `flat`, `mask`",
                one.display()
            ),
        ),
        (
            vec![
                "--input".into(),
                format!("image={}", one.display()),
                "--input".into(),
                format!("image={}", one.display()),
            ],
            2,
            "images: --input: `image` is given twice".into(),
        ),
        (
            vec!["--output".into(), dir.join("o").display().to_string()],
            2,
            "images: --output needs --input".into(),
        ),
    ];
    for (args, code, want) in cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = run(&exe, &a);
        assert_eq!(ran.status.code(), Some(code), "{args:?}: {}", ran.stderr);
        assert!(
            ran.stderr.starts_with(&want),
            "{args:?}:\n{}\nwanted: {want}",
            ran.stderr
        );
        assert!(ran.stdout.is_empty(), "{args:?}: ran anyway");
    }
}

/// Every documented exit of the program (runtime-c/README.md: the command
/// line, "Image files") under AddressSanitizer with the leak checker: the
/// documented exit code, and no report — a leak would turn exit 2 into
/// LeakSanitizer's 23 (the `--input` list, freed on every early exit).
#[test]
fn every_exit_path_keeps_its_code_and_leaks_nothing_under_address_sanitizer() {
    let tc = Toolchain::new("asan-exits", "cc", "-O1 -g -fsanitize=address")
        .unwrap_or_else(|e| panic!("{e}"));
    let dir = scratch("images-asan");
    let exe =
        build(&tc, &Case::new(chain(), "-ts fused 2"), &dir).unwrap_or_else(|e| panic!("{e}"));
    let frames = scratch("images-asan-frames");
    let f = frame_folders(&frames, 2);
    let one = f[0].join("f00.pgm");
    let bad = |file: &str| format!("image={}", root("tests/images/bad").join(file).display());
    let out = frames.join("out");
    let dump = frames.join("dump.csv");
    let mut cases: Vec<(Vec<String>, i32)> = vec![
        (vec!["--help".into()], 0),
        (vec!["--iterations".into(), "3".into()], 0),
        (
            vec![
                "--iterations".into(),
                "3".into(),
                "--dump".into(),
                dump.display().to_string(),
            ],
            0,
        ),
        (vec!["--bogus".into()], 2),
        (vec!["--iterations".into(), "0".into()], 2),
        (vec!["--iterations".into(), "x".into()], 2),
        (
            vec!["--forever".into(), "--iterations".into(), "3".into()],
            2,
        ),
        (vec!["--fifo".into(), "100".into()], 2),
        (vec!["--dump-format".into(), "xml".into()], 2),
        (vec!["--input".into()], 2),
        (vec!["--input".into(), "nope=x.pfm".into()], 2),
        (
            vec!["--input".into(), "image=x.pgm".into(), "--bogus".into()],
            2,
        ),
        (
            vec![
                "--input".into(),
                "image=x.pgm".into(),
                "--iterations".into(),
                "-1".into(),
            ],
            2,
        ),
        (vec!["--output".into(), out.display().to_string()], 2),
        (vec!["--input".into(), "image=/no/such/file.pgm".into()], 1),
        (
            vec![
                "--input".into(),
                format!("image={}", one.display()),
                "--output".into(),
                format!("{}/out", one.display()),
            ],
            1,
        ),
    ];
    for file in [
        "truncated.pgm",
        "above_maxval.pgm",
        "wrong_size.pgm",
        "ascii.pgm",
    ] {
        cases.push((vec!["--input".into(), bad(file)], 1));
    }
    cases.push((
        input_args(&f)
            .into_iter()
            .chain(["--output".into(), out.display().to_string()])
            .collect(),
        0,
    ));
    for (args, code) in cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = run_in(
            &[],
            &exe,
            &a,
            &[("ASAN_OPTIONS", "detect_leaks=1")],
            &dir,
            RUN_DEADLINE,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ran.status.code(), Some(code), "{args:?}:\n{}", ran.stderr);
        assert!(
            !ran.stderr.contains("Sanitizer"),
            "{args:?}:\n{}",
            ran.stderr
        );
    }
}

/// A source's frame read both now and through a delay: the reader of this
/// frame depends on the source, so one buffer cannot hold both frames and
/// the source's output is a double-buffered state (docs/language.md,
/// "Delays"). A state is never read in place (runtime-c/README.md,
/// "Sources read in place"): the source writes each frame into its
/// iteration's copy, the reader of the previous frame reads the other.
/// The difference of each frame and the one before (0 before the first)
/// comes back exact.
#[test]
fn a_source_read_now_and_through_a_delay_gives_each_frame_and_the_one_before() {
    let dir = scratch("images-in-place-delay");
    let desc = write_input(
        &dir,
        "delta.ssc",
        "composition {
  container_declaration source16 { out OUT ushort mul [1, 1]; };
  container_declaration sinkf { in IN float mul [1, 1]; };
  container_declaration delta {
    now IN ushort mul [1, 1] [3, 3];
    before IN ushort mul [1, 1];
    out OUT float mul [1, 1];
  };
  container_declaration top { };
  container_bind source16 func_source FULL, sinkf func_sink_f FULL, delta delta FULL;
  function_definition delta {
    out = float(now) - float(before);
  };
  container_composition top {
    container image source16 index, d delta index, o sinkf index;
    image.out -> d.now;
    image.out -> d.before delay 0;
    d.out -> o.in;
  };
  compose top [64, 48];
}
",
    );
    for flags in ["-ts fused 2", "-ts reduced 2 -ms interference"] {
        let tag = flags.replace(' ', "");
        let exe = build(gcc(), &Case::new(&desc, flags), &dir.join(&tag))
            .unwrap_or_else(|e| panic!("{e}"));
        let c = std::fs::read_dir(exe.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                let name = p.file_name().unwrap().to_string_lossy();
                name.ends_with(".c") && !name.starts_with("ssc_")
            })
            .map(|p| std::fs::read_to_string(p).unwrap())
            .expect("the generated C");
        // No port reads the source's frame in place (only d writes the
        // sink's frame in place, and the sink reads it there); the state's
        // ports carry the distance to its second copy, the delayed
        // reader's phase 1.
        let in_place: Vec<&str> = c.lines().filter(|l| l.contains(".frame_of = ")).collect();
        assert!(
            in_place.len() == 2
                && in_place
                    .iter()
                    .all(|l| l.contains("chain->out_d[0]") || l.contains("chain->in_o[0]")),
            "{flags}: {in_place:#?}"
        );
        let copies: Vec<&str> = c.lines().filter(|l| l.contains(".alt = 3072;")).collect();
        assert_eq!(copies.len(), 3, "{flags}: {copies:#?}");
        assert_eq!(
            copies.iter().filter(|l| l.contains(".phase = 1;")).count(),
            1,
            "{flags}: {copies:#?}"
        );
        let frames = dir.join(format!("frames-{tag}"));
        std::fs::create_dir_all(&frames).unwrap();
        for k in 0..3 {
            std::fs::write(
                frames.join(format!("f{k:02}.pgm")),
                pgm16(&image16(k), 65535),
            )
            .unwrap();
        }
        let out = dir.join(format!("out-{tag}"));
        run_frames(&exe, &format!("image={}", frames.display()), &out);
        for k in 0..3 {
            let (_, v) = read_back(&out.join(format!("o_{k:04}.pfm")));
            let want: Vec<f64> = image16(k)
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    x as f64
                        - if k == 0 {
                            0.0
                        } else {
                            image16(k - 1)[i] as f64
                        }
                })
                .collect();
            assert_eq!(v, want, "{flags}: frame {k}");
        }
    }
}
