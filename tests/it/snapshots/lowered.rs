//! The library's route of the snapshot driver: every input lowered to its
//! instantiation (`lower_to_instantiation`, split in at most 3 parts, no
//! fusion, unit cost) gives `lowered/NAME.ssc` (printed), the DOT of the
//! declaration and of the instantiation HSDFG (`dot/NAME.declaration.dot`,
//! `dot/NAME.instantiation.dot`), its SDF3 XML (`sdf3/NAME.xml`) and GXL
//! (`gxl/NAME.gxl`). Besides the text it checks the print → parse → lower
//! round trip, that SDF3's strict reader would take the XML, and (when the
//! tools are installed; under `SSC_NO_SKIP=1` they must be) that the DOT
//! renders and the XML is well-formed.

use super::{golden_files, pipe, stem, tool};
use crate::support;

use ssc::back::{description::print, dot, gxl, sdf3};
use ssc::lower::{lower_to_hsdfg, lower_to_instantiation, split::SplitOptions, LowerOptions};
use std::path::Path;
use std::process::{Command, Stdio};

/// The files this route writes for `input`, under `tests/out/`.
pub(super) fn outputs(input: &Path) -> Vec<String> {
    let s = stem(input);
    vec![
        format!("lowered/{s}.ssc"),
        format!("dot/{s}.declaration.dot"),
        format!("dot/{s}.instantiation.dot"),
        format!("sdf3/{s}.xml"),
        format!("gxl/{s}.gxl"),
    ]
}

fn opts() -> LowerOptions {
    LowerOptions {
        inline: false,
        contract: false,
        own_kernels: Vec::new(),
        resolution_override: None,
        cost: None,
        split: SplitOptions {
            max_parts: 3,
            ..SplitOptions::default()
        },
    }
}

#[test]
fn lowered_dot_sdf3_gxl_and_round_trips() {
    let have_dot = tool("dot");
    let have_xmllint = Command::new("xmllint")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !have_dot {
        support::skip(
            "lowered_dot_sdf3_gxl_and_round_trips (rendering DOT)",
            "graphviz `dot` not installed",
        );
    }
    let have_python = !have_xmllint && tool("python3");
    if !have_xmllint {
        support::skip(
            "lowered_dot_sdf3_gxl_and_round_trips (xmllint)",
            "`xmllint` not installed",
        );
        println!(
            "note: `xmllint` not installed; {}",
            if have_python {
                "checking XML well-formedness with python3's expat instead"
            } else {
                "not checking XML well-formedness"
            }
        );
    }
    for path in super::inputs() {
        let stem = stem(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut desc = ssc::front::read(&text, &[])
            .map(|x| x.description)
            .unwrap_or_else(|e| panic!("{}: {:?}", path.display(), e));
        // A `lut("file")` is read relative to the description.
        desc.dir = path.parent().map(Path::to_path_buf);
        let lowered = lower_to_instantiation(&desc, &opts())
            .unwrap_or_else(|e| panic!("{}: {:#?}", path.display(), e));
        let printed = print(&lowered);
        // print → parse → lower gives the same description, printed the same.
        let mut again = ssc::front::read(&printed, &[])
            .map(|x| x.description)
            .unwrap();
        again.dir = desc.dir.clone();
        assert_eq!(again, lowered, "{stem}: parse(print(lowered))");
        let relowered = lower_to_instantiation(&again, &opts()).unwrap();
        assert_eq!(relowered, lowered, "{stem}: lower(parse(print(lowered)))");
        assert_eq!(print(&relowered), printed, "{stem}: printed twice");

        let (_, g) = lower_to_hsdfg(&desc, &opts()).unwrap();
        let ddot = dot::declaration_dot(lowered.declaration.as_ref().unwrap());
        let idot = dot::instantiation_dot(&g);
        let xml = sdf3::sdf3(&g, &stem);
        let gst = gxl::gxl(&g, &stem);
        if have_dot {
            assert!(pipe("dot", &["-Tsvg"], &ddot), "{stem}: declaration DOT");
            assert!(pipe("dot", &["-Tsvg"], &idot), "{stem}: instantiation DOT");
        }
        if have_xmllint {
            assert!(pipe("xmllint", &["--noout", "-"], &xml), "{stem}: SDF3 XML");
            assert!(pipe("xmllint", &["--noout", "-"], &gst), "{stem}: GXL");
        } else if have_python {
            let check = [
                "-c",
                "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.stdin.buffer)",
            ];
            assert!(pipe("python3", &check, &xml), "{stem}: SDF3 XML");
            assert!(pipe("python3", &check, &gst), "{stem}: GXL");
        }
        sdf3_is_strict(&stem, &xml);
        golden_files(&path, outputs(&path), vec![printed, ddot, idot, xml, gst]);
    }
}
/// SDF3's reader is strict: all actors before all channels, and every port
/// connected to exactly one channel.
fn sdf3_is_strict(stem: &str, xml: &str) {
    use std::collections::BTreeMap;
    let attr = |line: &str, name: &str| -> Vec<String> {
        let key = format!(" {name}=\"");
        line.match_indices(&key)
            .map(|(i, _)| {
                let rest = &line[i + key.len()..];
                rest[..rest.find('"').unwrap()].to_string()
            })
            .collect()
    };
    let mut ports: BTreeMap<(String, String), u32> = BTreeMap::new();
    let mut seen_channel = false;
    for line in xml.lines().map(str::trim) {
        if line.starts_with("<actor ") {
            assert!(!seen_channel, "{stem}: actor after a channel");
            let actor = attr(line, "name")[0].clone();
            for p in attr(line, "name").into_iter().skip(1) {
                assert!(ports.insert((actor.clone(), p), 0).is_none());
            }
            assert!(line.contains(" type=\""), "{stem}: actor without type");
        } else if line.starts_with("<channel ") {
            seen_channel = true;
            for (a, p) in [("srcActor", "srcPort"), ("dstActor", "dstPort")] {
                let key = (attr(line, a)[0].clone(), attr(line, p)[0].clone());
                *ports
                    .get_mut(&key)
                    .unwrap_or_else(|| panic!("{stem}: {key:?}")) += 1;
            }
        } else if line.starts_with("<actorProperties ") {
            assert!(line.contains("default=\"true\"") && line.contains("<executionTime time=\""));
        }
    }
    for (k, n) in ports {
        assert_eq!(n, 1, "{stem}: port {k:?} is connected to {n} channels");
    }
}
