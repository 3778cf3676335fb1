//! A reader of the homogeneous SDF3 XML that `ssc::back::sdf3` writes
//! (`-xr`), for the tests that check an export against the analysis: not a
//! general SDF3 reader, so it lives with the tests, not in the compiler.

/// A homogeneous SDF3 graph read back: actor names with their execution
/// time, channels as `(source, destination, initial tokens)` indices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sdf3Graph {
    pub actors: Vec<(String, u64)>,
    pub channels: Vec<(usize, usize, u64)>,
}

fn attribute(tag: &str, key: &str) -> Option<String> {
    let pat = format!(" {key}=\"");
    let start = tag.find(&pat)? + pat.len();
    let end = tag[start..].find('"')? + start;
    Some(
        tag[start..end]
            .replace("&quot;", "\"")
            .replace("&gt;", ">")
            .replace("&lt;", "<")
            .replace("&amp;", "&"),
    )
}

/// Reads what `ssc::back::sdf3::{sdf3, sdf3_runtime}` write (one element per tag,
/// rates 1), to check an export against the analysis. Not a general SDF3
/// reader: an error names the first tag it could not understand.
pub fn read_hsdf(xml: &str) -> Result<Sdf3Graph, String> {
    let mut g = Sdf3Graph::default();
    let mut index: std::collections::BTreeMap<String, usize> = Default::default();
    let mut times: std::collections::BTreeMap<String, u64> = Default::default();
    let mut current: Option<String> = None;
    for tag in xml.split('<').skip(1) {
        let tag = format!(" {}", tag.split('>').next().unwrap_or(""));
        let kind = tag.split_whitespace().next().unwrap_or("");
        let bad = || format!("cannot read `<{}>`", tag.trim());
        match kind {
            "actor" => {
                let name = attribute(&tag, "name").ok_or_else(bad)?;
                index.insert(name.clone(), g.actors.len());
                g.actors.push((name, 0));
            }
            "channel" => {
                let src = attribute(&tag, "srcActor").ok_or_else(bad)?;
                let dst = attribute(&tag, "dstActor").ok_or_else(bad)?;
                let tokens = attribute(&tag, "initialTokens")
                    .map(|t| t.parse::<u64>().map_err(|_| bad()))
                    .transpose()?
                    .unwrap_or(0);
                let (Some(&a), Some(&b)) = (index.get(&src), index.get(&dst)) else {
                    return Err(bad());
                };
                g.channels.push((a, b, tokens));
            }
            "actorProperties" => current = attribute(&tag, "actor"),
            "executionTime" => {
                let t = attribute(&tag, "time")
                    .and_then(|t| t.parse::<u64>().ok())
                    .ok_or_else(bad)?;
                if let Some(a) = &current {
                    times.insert(a.clone(), t);
                }
            }
            _ => {}
        }
    }
    for (name, t) in &mut g.actors {
        *t = times.get(name.as_str()).copied().unwrap_or(0);
    }
    Ok(g)
}
