//! What `ssc build` writes or prints besides a program: the graphs
//! (`-dg -ig -rg -xr -gg`), the declaration (`-gd`), `-pr`'s analysis, and
//! `-t info`.

use super::super::args::{BuildArgs, XrGraph};
use super::super::exit;
use super::{lower_or_report, output_dir, write, Built};
use ssc::back;
use ssc::diagnostics::SourceFile;
use ssc::ir::Description;
use ssc::memory::MemoryKind;
use ssc::pipeline::{self, Compiled};
use ssc::schedule::SchedulerKind;

/// `-dg` / `-gd`: the declaration's graph, and with `-gd` the declaration
/// printed, the build then complete.
pub(super) fn declaration(
    a: &BuildArgs,
    desc: &Description,
    opts: &pipeline::Options,
    file: &SourceFile,
) -> Result<Option<Built>, i32> {
    let declared = lower_or_report(ssc::lower::lower_to_declaration(desc, &opts.lower), file)?;
    if let Some(path) = &a.declaration_graph {
        write(
            path,
            &back::dot::declaration_dot(declared.declaration.as_ref().expect("lowered")),
        )?;
    }
    if a.generate_declaration {
        print!("{}", back::description::print(&declared));
        return Ok(Some(Built::nothing()));
    }
    Ok(None)
}

/// `-t info`: the compiled description's figures, text or JSON; under
/// `-ts fused`, what streaming saves against the box-at-a-time reference.
pub(super) fn info(a: &BuildArgs, desc: &Description, opts: &pipeline::Options, c: &Compiled) {
    let mut info = back::info::info(c);
    if let SchedulerKind::Fused(n) = opts.scheduler {
        let mut reference = opts.clone();
        reference.scheduler = SchedulerKind::Reduced(n);
        reference.memory = MemoryKind::Interference;
        reference.lower.split.strips = None;
        reference.lower.split.max_parts = n as u64;
        if let Ok(r) = pipeline::compile(desc, &reference) {
            info.set_reference(
                &format!(
                    "-ts {} -ms {}",
                    reference.scheduler,
                    reference.memory.keyword()
                ),
                r.memory.map_or(0, |m| m.used_bytes()),
                c.memory.as_ref().map_or(0, |m| m.used_bytes()),
            );
        }
    }
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&info).unwrap_or_default()
        );
    } else {
        print!("{}", back::info::text(&info));
    }
}

/// `-ig -rg -xr -gg`: the graphs of a compiled description.
pub(super) fn exports(a: &BuildArgs, c: &Compiled, name: &str) -> Result<(), i32> {
    if let Some(path) = &a.instantiation_graph {
        write(path, &back::dot::instantiation_dot(&c.hsdfg))?;
    }
    if let Some(path) = &a.runtime_graph {
        write(path, &back::dot::runtime_dot(&c.runtime))?;
    }
    if a.xml_sdf_runtime {
        let path = a
            .xml_sdf_output
            .clone()
            .unwrap_or_else(|| output_dir(a, name).join(format!("{name}.sdf3.xml")));
        // The runtime HSDFG whenever there are programs (always, for a
        // build), unless `--xr-graph instantiation` asks for the HSDFG of
        // the sub-boxes alone.
        let graph = a
            .xr_graph
            .unwrap_or(if c.runtime.thread_executions.is_empty() {
                XrGraph::Instantiation
            } else {
                XrGraph::Runtime
            });
        let xml = match graph {
            XrGraph::Instantiation => back::sdf3::sdf3(&c.hsdfg, name),
            XrGraph::Runtime => back::sdf3::sdf3_runtime(&ssc::analysis::runtime_graph(c), name),
        };
        write(&path, &xml)?;
        if path.as_os_str() != "-" {
            eprintln!("wrote {}", path.display());
        }
    }
    if let Some(path) = &a.groove_graph {
        let gxl = match a.gg_graph.unwrap_or(XrGraph::Instantiation) {
            XrGraph::Instantiation => back::gxl::gxl(&c.hsdfg, name),
            XrGraph::Runtime => back::gxl::gxl_runtime(&ssc::analysis::runtime_graph(c), name),
        };
        write(path, &gxl)?;
    }
    Ok(())
}

/// `-pr` / `-sl F`: the dataflow analysis of the runtime HSDFG.
pub(super) fn analysis(a: &BuildArgs, c: &Compiled) -> Result<(), i32> {
    let report = ssc::analysis::analyse(c).map_err(|d| {
        eprintln!("error: {d}");
        exit::EXTERNAL
    })?;
    let text = ssc::analysis::text(&report);
    if a.sdf_runtime {
        print!("{text}");
    }
    if let Some(path) = &a.sdf_log {
        write(path, &text)?;
    }
    Ok(())
}
