//! One way through for every input: split it into chunks; pass 1 indexes the sources and
//! decides renames; pass 2 resolves, renames and stamps chunk by chunk (in parallel),
//! yielding per item its resolutions, findings and splices; one conclusion turns those
//! into the output, the results, `--check`'s stale list and `graph`'s edges.

use rayon::prelude::*;

use crate::edit::stamp;
use crate::model::config::ConfigError;
use crate::model::findings::Finding;
use crate::model::invocation::{InputConfig, Invocation, is_package_kptfile};
use crate::model::reference::SourceKey;
use crate::model::result::KrmResult;
use crate::model::settings::Settings;
use crate::read::chunks::{self, Coarser, Frame as Framing, Split};
use crate::read::input_error::InputError;
use crate::resolve::renames::Renaming;
use crate::resolve::resolution;
use crate::resolve::sources::SourceIndex;
use crate::run::conclude::{Concluding, Prepared};
use crate::run::frame::{Frame, Stop, kptfile_chunk};
use crate::run::pass1::{self, Indexed, Pass1};
use crate::run::pass2::{self, Gathered};
use crate::yaml::{Context, Splices};

/// What the caller needs beyond the output and results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    /// The output alone: no stale list (writing the output reads none, and a large
    /// input edits most items, whose ids would be held until the end for nothing).
    Output,
    /// `--check`'s stale list too.
    Stale,
    /// A copy of the item edits too, and the stale list.
    Edits,
    /// The resolution too (`graph` and other views).
    Resolution,
}

pub(crate) const BOM: &str = "\u{feff}";

pub(crate) fn strip_bom(input: &str) -> (&str, &str) {
    match input.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", input),
    }
}

/// The one entry to the pipeline: refuses what YAML refuses, and reads lone CR line
/// breaks through an LF copy whose edits get the original breaks back.
pub(crate) fn prepare_input<'a>(
    input: &'a str,
    invocation: &Invocation,
    want: Want,
) -> Result<Prepared<'a>, InputError> {
    let (bom, body) = strip_bom(input);
    crate::yaml::check_characters(body)?;
    if let Some(lf) = crate::yaml::breaks::lone_cr_as_lf(body) {
        let prepared = prepare(&lf, bom, invocation, want)?;
        return Ok(prepared.rebase(body, bom));
    }
    prepare(body, bom, invocation, want)
}

/// Runs the function.
pub(crate) fn prepare<'a>(
    body: &'a str,
    bom: &'a str,
    invocation: &Invocation,
    want: Want,
) -> Result<Prepared<'a>, InputError> {
    let split = if invocation.one_chunk {
        Split::whole(body, Coarser::Requested)
    } else {
        chunks::split(body)
    };
    match attempt(body, bom, invocation, want, split) {
        Ok(p) => Ok(p),
        Err(Stop::Input(e)) => Err(e),
        Err(Stop::Coarser(why)) => {
            match attempt(body, bom, invocation, want, Split::whole(body, why)) {
                Ok(p) => Ok(p),
                Err(Stop::Input(e)) => Err(e),
                // The whole input is one chunk already: nothing is bigger.
                Err(Stop::Coarser(why)) => Err(InputError {
                    line: 1,
                    column: 1,
                    message: format!("internal error: {why}"),
                    limit: None,
                }),
            }
        }
    }
}

/// The run of an input whose configuration is refused: nothing is stamped and the
/// results say why, unless an item cannot be read, which is reported first, as always
/// (a chunk that does not read makes the input one chunk, which words the error).
fn refuse_config<'a>(
    body: &'a str,
    bom: &'a str,
    frame: &Frame<'_>,
    split: Split,
    ctx: Context,
    errors: Vec<ConfigError>,
) -> Result<Prepared<'a>, Stop> {
    split
        .chunks
        .par_iter()
        .try_for_each(|chunk| frame.with_chunk(body, chunk, ctx, |_, _| ()))?;
    Ok(finish_with_config_errors(
        body,
        bom,
        frame,
        errors,
        split.coarser,
    ))
}

fn attempt<'a>(
    body: &'a str,
    bom: &'a str,
    invocation: &Invocation,
    want: Want,
    split: Split,
) -> Result<Prepared<'a>, Stop> {
    let views = want == Want::Resolution;
    // Every part of the input is read as the whole would be (JSON or YAML, its line
    // endings), with the whole input's line numbers.
    let ctx = Context::of(body);
    let skeleton = match split.frame {
        Framing::List { list } => Some(crate::yaml::Cut::new(body, list)),
        _ => None,
    };
    let frame = Frame::read(body, skeleton.as_ref(), &split, ctx)?;
    let settings = match settings(body, invocation, &frame, &split, ctx)? {
        Ok(settings) => settings,
        Err(errors) => return refuse_config(body, bom, &frame, split, ctx, errors),
    };
    let (config, catalog) = (&settings.config, &settings.catalog);

    // Pass 1: the sources' content and rename decisions; between the passes, renames,
    // then the index under final names.
    let keep = pass1::Keep {
        views,
        ids: want != Want::Output,
    };
    let pass1: Vec<Pass1> = pass1::run(body, ctx, &frame, &split.chunks, &settings, keep)?;
    let Indexed {
        renames,
        renamed_list,
        index,
        results,
        duplicates,
        generated,
        work,
        own,
        spent,
    } = pass1::index_sources(pass1);

    // Pass 2: every chunk that has work, against the complete index.
    let renamed = renamed_list
        .iter()
        .map(|(key, r)| {
            (
                (key.kind, key.namespace.as_deref(), key.name.as_str()),
                &**r,
            )
        })
        .collect();
    let shared = pass2::Shared {
        config,
        catalog,
        renames: &renames,
        index: &index,
        renamed,
        record: views,
        ids: keep.ids,
    };
    let stamping = stamp::Finish::new(duplicates, index.unreadable());
    let gathered = Gathered::new(renames.len(), views, stamping);
    let gathered = pass2::run(
        body,
        ctx,
        &frame,
        &split.chunks,
        (work, own),
        &shared,
        gathered,
    )?;
    drop(shared);
    drop(renames);
    drop(spent);

    // Conclusion: results in a fixed order, edits, stale list, edges.
    let Gathered {
        rename_errors,
        mentions,
        pointed,
        item_edits,
        stale,
        stamping,
        resolution,
        ..
    } = gathered;
    let mut results = results;
    results.extend(rename_errors);
    results.extend(mentions);
    let resolution = renamed_results(renamed_list, &pointed, index, resolution, &mut results);
    if generated > 0 {
        results.push(KrmResult::new(Finding::Generated { count: generated }));
    }
    // Stamping's results are one per workload: the few before them go in front, so a
    // large input's results are not copied into a second vector at the peak.
    let mut all = stamping.results();
    all.splice(0..0, results);
    let results = all;
    let mut prepared = crate::run::conclude::conclude(
        Concluding {
            body,
            bom,
            item_edits,
            results,
            resource_list: frame.is_resource_list(),
            keep_edits: want == Want::Edits,
        },
        |edited| if edited { stale } else { Vec::new() },
        |splices: &mut Splices| frame.write_results(body, splices),
    );
    prepared.coarser = split.coarser;
    prepared.resolution = resolution.unwrap_or_default();
    Ok(prepared)
}

/// The run's settings, from the invocation and the input's own configuration. The
/// Kptfile a ResourceList carries is read only when nothing else configures the run,
/// and only the chunks that can hold it are parsed for it. `Err`: an item cannot be
/// read; `Ok(Err)`: the configuration is wrong.
fn settings(
    body: &str,
    invocation: &Invocation,
    frame: &Frame<'_>,
    split: &Split,
    ctx: Context,
) -> Result<Result<Settings, Vec<ConfigError>>, Stop> {
    let parsed_kptfile;
    let input_config = match (frame.function_config(), &frame.tree, &frame.whole_items) {
        (Some((tree, node)), _, _) => InputConfig::FunctionConfig(tree, node),
        _ if !frame.is_resource_list() || !invocation.reads_input_config() => InputConfig::None,
        (None, Some(tree), Some(items)) => items
            .iter()
            .find(|&&item| is_package_kptfile(tree, item))
            .map_or(InputConfig::None, |&item| InputConfig::Kptfile(tree, item)),
        (None, _, _) => {
            parsed_kptfile = kptfile_chunk(body, &split.chunks, ctx)?;
            match &parsed_kptfile {
                Some((tree, item)) => InputConfig::Kptfile(tree, *item),
                None => InputConfig::None,
            }
        }
    };
    Ok(invocation.settings(input_config))
}

/// Adds the result of each renamed object, in input order, and gives the resolution (when
/// views asked for one) the index. What the results need of the index is taken out of
/// it, and the rest dropped, as the renames were: nothing reads them any more, and their
/// memory is free for what follows.
fn renamed_results(
    renamed_list: Vec<(SourceKey, Box<Renaming>)>,
    pointed: &[usize],
    mut index: SourceIndex,
    resolution: Option<resolution::Resolution>,
    results: &mut Vec<KrmResult>,
) -> Option<resolution::Resolution> {
    let views = resolution.is_some();
    let renamed_sources: Vec<resolution::RenamedSource> = if views {
        renamed_list
            .iter()
            .map(|(key, r)| resolution::RenamedSource {
                kind: key.kind,
                namespace: key.namespace.clone(),
                base: r.base.clone(),
                name: r.new_name.clone(),
            })
            .collect()
    } else {
        Vec::new()
    };
    results.extend(
        renamed_list
            .into_iter()
            .zip(pointed)
            .filter_map(|((key, r), &n)| {
                let key = SourceKey {
                    name: r.new_name.clone(),
                    ..key
                };
                // Views keep the index: the result gets a copy.
                let source = if views {
                    Box::new(index.get(&key)?.clone())
                } else {
                    index.take(&key)?
                };
                Some(source.into_renamed_result(*r, n))
            }),
    );
    let mut resolution = resolution?;
    resolution.sources = index;
    resolution.renamed = renamed_sources;
    Some(resolution)
}

/// A run that stops at configuration errors: no edits, the errors as results.
fn finish_with_config_errors<'a>(
    body: &'a str,
    bom: &'a str,
    frame: &Frame<'_>,
    errors: Vec<ConfigError>,
    coarser: Vec<Coarser>,
) -> Prepared<'a> {
    let mut prepared = crate::run::conclude::conclude(
        Concluding {
            body,
            bom,
            item_edits: Splices::new(),
            results: errors
                .into_iter()
                .map(crate::run::conclude::config_error)
                .collect(),
            resource_list: frame.is_resource_list(),
            keep_edits: false,
        },
        |_| Vec::new(),
        |splices: &mut Splices| frame.write_results(body, splices),
    );
    prepared.coarser = coarser;
    prepared
}

#[cfg(test)]
mod tests {
    use crate::model::findings::Severity;
    use crate::{Invocation, run};

    const LIST: &str = "apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: cfg, annotations: {config-hash.dev/name-suffix: 'true'}}
  data: {A: '1'}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    template:
      spec:
        containers:
        - name: app
          envFrom: [{configMapRef: {name: cfg}}]
          args: [--config, cfg]
";

    /// Runs `text` with no options, expecting success with every item read alone.
    fn read_apart(text: &str) -> crate::Outcome {
        let out = run(text, &Invocation::default()).unwrap();
        assert_eq!(out.exit_code, 0, "{:?}", out.results);
        assert!(out.coarser.is_empty(), "{:?}", out.coarser);
        out
    }

    #[test]
    fn a_view_keeps_the_resolution_but_neither_edits_nor_a_result_per_workload_nor_a_stale_list() {
        use crate::model::findings::Finding;
        let stamped = |results: &[crate::model::result::KrmResult]| {
            results
                .iter()
                .filter(|r| matches!(*r.finding, Finding::Stamped { .. }))
                .count()
        };
        let run = crate::prepare(LIST, &Invocation::default()).unwrap();
        assert_eq!(stamped(&run.results), 1);
        let view = crate::resolve_run(LIST, &Invocation::default()).unwrap();
        assert_eq!(stamped(&view.results), 0, "{:?}", view.results);
        // Nor a stale list, which `--check` keeps of the same input.
        assert!(view.stale.is_empty(), "{:?}", view.stale);
        assert!(
            !crate::check(LIST, &Invocation::default())
                .unwrap()
                .stale
                .is_empty()
        );
        assert_eq!(view.exit_code, 0);
        let workload = view
            .resolution
            .items
            .iter()
            .find_map(|i| i.workload.as_ref());
        assert!(
            workload.is_some_and(|w| w.stamp.is_some()),
            "{:?}",
            view.resolution
        );
        // What it would write is the input as it is, with its results only.
        let mut text = Vec::new();
        view.write_to(&mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.starts_with(LIST.trim_end()), "{text}");
    }

    #[test]
    fn renames_rewrites_and_stamps_in_one_pass_per_chunk() {
        let out = read_apart(LIST);
        let at = out
            .output
            .find("name: cfg-")
            .expect("the ConfigMap is renamed")
            + 6;
        let new_name = &out.output[at..at + "cfg-".len() + 10];
        assert!(
            out.output
                .contains(&format!("name: {new_name}, annotations")),
            "{}",
            out.output
        );
        assert!(
            out.output
                .contains(&format!("configMapRef: {{name: {new_name}}}"))
        );
        // The item edits are the whole change to the items: applied to the input, they
        // give the output up to its results.
        assert!(!out.item_edits.is_empty());
        let edited = out.item_edits.apply(LIST).unwrap();
        assert_eq!(out.output.split("results:").next(), Some(edited.as_str()));
        // Both items were edited, so both are stale before the run and neither after.
        let stale: Vec<String> = out.stale.iter().map(ToString::to_string).collect();
        assert_eq!(stale, ["ConfigMap cfg", "Deployment web"]);
        assert!(
            run(&out.output, &Invocation::default())
                .unwrap()
                .stale
                .is_empty()
        );
        // Results, in their fixed order: the old name left in args, the rename, the stamp.
        let messages: Vec<(&Severity, String)> = out
            .results
            .iter()
            .map(|r| (&r.severity, r.message()))
            .collect();
        assert_eq!(messages.len(), 4, "{messages:?}");
        assert_eq!(messages[0].0, &Severity::Warning);
        assert!(
            messages[0]
                .1
                .contains("spec.template.spec.containers[0].args[1] is \"cfg\""),
            "{messages:?}"
        );
        assert!(
            messages[1]
                .1
                .contains("hashed name for base name cfg (1 reference(s)"),
            "{messages:?}"
        );
        assert!(
            messages[2].1.starts_with("Deployment web: annotation"),
            "{messages:?}"
        );
        assert!(
            messages[3]
                .1
                .starts_with("config-hash: 1 workload(s) stamped"),
            "{messages:?}"
        );
    }

    /// A JSON ResourceList is cut into its items like a YAML one, each read alone.
    #[test]
    fn a_json_resource_list_is_read_item_by_item() {
        let json = "{\"apiVersion\": \"config.kubernetes.io/v1\", \"kind\": \"ResourceList\", \"items\": [\n{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\"}, \"data\": {\"A\": \"1\"}},\n{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"b\"}}\n]}\n";
        read_apart(json);
    }

    /// A plain stream is cut into its documents, each read alone, and a document that
    /// looks like config-hash's own configuration is warned about from its chunk.
    #[test]
    fn a_stream_is_read_document_by_document_and_a_config_lookalike_warned() {
        let stream = "apiVersion: config-hash.dev/v1alpha1\nkind: ConfigHash\nmetadata: {name: c}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {A: '1'}\n";
        let out = read_apart(stream);
        assert!(
            out.results.iter().any(|r| matches!(
                *r.finding,
                crate::model::findings::Finding::ConfigAmongManifests
            )),
            "{:?}",
            out.results
        );
    }

    /// `--debug` says why chunks were bigger than one item, also when the run stops at
    /// configuration errors.
    #[test]
    fn why_chunks_were_coarser_reaches_the_outcome() {
        let shared = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n  data: &d {A: '1'}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n  data: *d\n";
        let bad_config = format!(
            "{shared}functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: c}}\n  data: {{mode: sometimes}}\n"
        );
        for (input, exit_code) in [(shared, 0), (bad_config.as_str(), 1)] {
            let out = run(input, &Invocation::default()).unwrap();
            assert_eq!(out.exit_code, exit_code, "{:?}", out.results);
            assert!(
                matches!(
                    out.coarser[..],
                    [crate::read::chunks::Coarser::SharedAnchor { .. }]
                ),
                "{:?}",
                out.coarser
            );
        }
    }

    /// With a namespace for objects written without one, a workload placed there shows
    /// its references as it names them (without a namespace), as it reads in the input;
    /// a workload written with its own namespace keeps it.
    #[test]
    fn references_of_a_placed_workload_read_as_written() {
        let stream = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {A: '1'}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: placed}\nspec: {template: {spec: {containers: [{name: c, envFrom: [{configMapRef: {name: cfg}}]}]}}}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: own, namespace: prod}\nspec: {template: {spec: {containers: [{name: c, envFrom: [{configMapRef: {name: cfg}}]}]}}}\n";
        let mut invocation = Invocation::default();
        invocation.overrides.namespace = Some("prod".into());
        let resolution = crate::resolve(stream, &invocation).unwrap();
        let namespaces: Vec<(&str, Option<&str>, crate::model::reference::Status)> = resolution
            .items
            .iter()
            .flat_map(|item| {
                let refs = &item.workload.as_ref().unwrap().references;
                refs.iter()
                    .map(|r| (item.id.name(), r.namespace.as_deref(), r.status.clone()))
            })
            .collect();
        assert_eq!(
            namespaces,
            [
                ("placed", None, crate::model::reference::Status::Found),
                ("own", Some("prod"), crate::model::reference::Status::Found)
            ]
        );
    }

    #[test]
    fn graph_resolves_base_names_like_stamping() {
        // After a render with suffixes, a new Deployment reads the base name.
        let rendered = run(LIST, &Invocation::default()).unwrap().output;
        let added = rendered.replace(
            "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}",
            "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: new}\n  spec: {template: {spec: {containers: [{name: c, envFrom: [{configMapRef: {name: cfg}}]}]}}}\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}",
        );
        let resolution = crate::resolve(&added, &Invocation::default()).unwrap();
        let new = crate::views::graph::edges(&resolution)
            .find(|e| e.workload.name() == "new")
            .unwrap();
        assert!(
            rendered.contains(&format!("name: {}, annotations", new.name)),
            "{}",
            new.name
        );
        assert_eq!(new.status, crate::views::graph::Status::Found);
        // And --check agrees that the new Deployment is out of date.
        let stale: Vec<String> = run(&added, &Invocation::default())
            .unwrap()
            .stale
            .iter()
            .map(|id| id.name().to_string())
            .collect();
        assert_eq!(stale, ["new"]);
    }

    #[test]
    fn a_paragraph_separator_before_the_first_key_is_a_line_break() {
        // Found by the fuzz smoke: go-yaml breaks the line at U+2029, so the key after
        // it is at column 0 and so are the results.
        let text = format!("\u{2029}{LIST}");
        let out = run(&text, &Invocation::default()).unwrap();
        assert!(out.output.contains("\nresults:\n"), "{}", out.output);
        assert!(crate::yaml::parse(&out.output).is_ok(), "{}", out.output);
    }

    #[test]
    fn a_second_byte_order_mark_is_not_indentation() {
        // Found by the fuzz target: results were written at column 1, so the output
        // did not parse.
        let text = format!("\u{feff}\u{feff}{LIST}");
        let out = run(&text, &Invocation::default()).unwrap();
        assert!(out.output.contains("\nresults:\n"), "{}", out.output);
        let body = out.output.trim_start_matches('\u{feff}');
        assert!(crate::yaml::parse(body).is_ok(), "{}", out.output);
    }

    #[test]
    fn an_opted_in_job_is_renamed_by_config_and_template_and_stays_put_on_its_output() {
        let input = "kind: ResourceList
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {A: '1'}}
- apiVersion: batch/v1
  kind: Job
  metadata: {name: j, annotations: {config-hash.dev/name-suffix: 'true'}}
  spec: {template: {spec: {containers: [{name: a, image: 'x:1', envFrom: [{configMapRef: {name: c}}]}]}}}
";
        let name = |out: &str| {
            let at = out.find("name: j-").expect("the Job is renamed") + 6;
            out[at..at + 12].to_string()
        };
        let first = run(input, &Invocation::default()).unwrap().output;
        let j = name(&first);
        assert!(j.chars().skip(2).all(|c| c.is_ascii_alphanumeric()), "{j}");
        // Its own output keeps the name (the base name is recorded).
        let again = run(&first, &Invocation::default()).unwrap();
        assert_eq!(again.output, first);
        assert!(again.stale.is_empty());
        // A config change, or an image change, gives a new name; the base stays.
        let config = run(&first.replace("A: '1'", "A: '2'"), &Invocation::default()).unwrap();
        assert_ne!(name(&config.output), j);
        let image = run(&first.replace("x:1", "x:2"), &Invocation::default()).unwrap();
        assert_ne!(name(&image.output), j);
        assert_ne!(name(&image.output), name(&config.output));
        // Mode both: the env var does not feed its own name.
        let both = Invocation {
            config_text: Some(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: f}\ndata: {mode: both}\n".into(),
            ),
            ..Invocation::default()
        };
        let out = run(input, &both).unwrap().output;
        assert_eq!(run(&out, &both).unwrap().output, out);
    }

    #[test]
    fn configuration_errors_are_results_unless_an_item_cannot_be_read() {
        let bad = "kind: ResourceList\nfunctionConfig: {apiVersion: v1, kind: ConfigMap, data: {mode: sideways}}\nitems:\n- {kind: ConfigMap, metadata: {name: a}}\n- {kind: ConfigMap, metadata: {name: b}}\n";
        let out = run(bad, &Invocation::default()).unwrap();
        assert_eq!(out.exit_code, 1);
        assert!(out.resource_list);
        assert!(out.item_edits.is_empty());
        assert!(
            out.results[0]
                .message()
                .contains("\"sideways\" is not accepted"),
            "{:?}",
            out.results
        );
        // Read item by item: the configuration alone does not make the input one chunk.
        assert!(out.coarser.is_empty(), "{:?}", out.coarser);
        // An item that cannot be read is the error, as with a good configuration.
        let unreadable = bad.replace("{name: b}}", "{name: [b}}");
        let good = unreadable.replace("sideways", "env");
        assert_eq!(
            run(&unreadable, &Invocation::default()).unwrap_err(),
            run(&good, &Invocation::default()).unwrap_err()
        );
    }

    /// A chunk that does not read alone as the items expected makes the input one chunk,
    /// and `--debug` names the chunk's first line: an alias of an anchor outside the
    /// items, and an entry that is the rest of a quoted scalar continued at column 0 (as
    /// go-yaml reads it; the item before it is read in pass 2 only, after this one).
    #[test]
    fn a_chunk_that_does_not_read_alone_is_named_by_its_line() {
        use crate::read::chunks::Coarser;
        let alias = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nx: &d {A: '1'}\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n  data: {B: '2'}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n  data: *d\n";
        let quoted = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a, annotations: {note: \"x\n- y ConfigMap\"}}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n";
        for (input, line) in [(alias, 9), (quoted, 7)] {
            let out = run(input, &Invocation::default()).unwrap();
            assert_eq!(out.exit_code, 0, "{:?}", out.results);
            assert_eq!(out.coarser, [Coarser::ChunkUnreadable { line }]);
            let whole = Invocation {
                one_chunk: true,
                ..Invocation::default()
            };
            assert_eq!(out.output, run(input, &whole).unwrap().output);
        }
    }

    /// An `items:` line inside a quoted scalar is not the list, though the list it does
    /// have is empty: the items cut at that line are no items of the ResourceList, and
    /// the Deployment in the scalar is not stamped.
    #[test]
    fn an_items_line_inside_a_quoted_scalar_is_not_the_list() {
        let input = "kind: ResourceList\nitems: []\nnote: \"a\nitems:\n- {apiVersion: apps/v1, kind: Deployment, metadata: {name: w}, spec: {template: {spec: {containers: [{name: c}]}}}}\nb\"\n";
        let out = run(input, &Invocation::default()).unwrap();
        assert_eq!(out.exit_code, 0, "{:?}", out.results);
        assert!(
            matches!(
                out.coarser[..],
                [crate::read::chunks::Coarser::UnusualList { .. }]
            ),
            "{:?}",
            out.coarser
        );
        assert!(out.item_edits.is_empty(), "{:?}", out.item_edits);
        assert!(out.output.starts_with(input), "{}", out.output);
    }

    #[test]
    fn a_chunk_that_does_not_read_makes_the_input_one_chunk_with_the_same_error() {
        let bad = "kind: ResourceList\nitems:\n- a: [1\n- b: 2\n";
        let chunked = run(bad, &Invocation::default()).unwrap_err();
        let whole = run(
            bad,
            &Invocation {
                one_chunk: true,
                ..Invocation::default()
            },
        )
        .unwrap_err();
        assert_eq!(chunked, whole);
    }
}
