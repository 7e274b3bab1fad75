//! Rendering tests over hand-built reports: 1, 3 and 15 models, null metrics, and empty reports.

use super::png::png_size;
use super::*;
use crate::tables::fixtures::{empty, model, pack, report, NAMES};

/// The SVG is one well-formed-looking document: it opens and closes an `<svg>` element and has
/// balanced `<text>` elements.
fn assert_svg(svg: &str) {
    assert!(svg.starts_with("<svg") || svg.contains("<svg "), "no <svg> element");
    assert!(svg.trim_end().ends_with("</svg>"), "document is not closed");
    assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count(), "unbalanced <text> elements");
}

/// Text as plotters writes it into the SVG (XML-escaped).
fn xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&apos;")
}

/// Whether the SVG has a `<text>` element whose whole content is `s`.
fn has_text(svg: &str, s: &str) -> bool {
    let t = xml(s);
    svg.contains(&format!(">\n{t}\n</text>")) || svg.contains(&format!(">{t}</text>"))
}

#[test]
fn every_chart_renders_for_1_3_and_15_models() {
    let pack = pack();
    for n in [1, 3, 15] {
        for with_nulls in [false, true] {
            let r = report(n, with_nulls);
            for kind in ChartKind::ALL {
                let svg = render_svg(kind, &r, &pack).unwrap_or_else(|e| panic!("{} ({n} models): {e}", kind.id()));
                assert_svg(&svg);
                assert!(svg.contains(&xml(kind.title())), "{} title missing", kind.id());
                let (w, h) = chart_size(kind, &r, &pack).unwrap();
                let one = render_png(kind, &r, &pack, 1).unwrap();
                assert_eq!(png_size(&one), Some((w, h)), "{} 1x size", kind.id());
                if n == 15 {
                    let two = render_png(kind, &r, &pack, 2).unwrap();
                    assert_eq!(png_size(&two), Some((2 * w, 2 * h)), "{} 2x size", kind.id());
                }
            }
        }
    }
}

#[test]
fn scatter_names_every_plotted_model() {
    let pack = pack();
    let r = report(15, false);
    let svg = render_svg(ChartKind::M5M6Scatter, &r, &pack).unwrap();
    for name in NAMES {
        assert!(has_text(&svg, name), "{name} is not labelled");
    }
    for q in ["asks and targets the gap", "asks but misses the gap", "rarely asks"] {
        assert!(svg.contains(q), "quadrant label {q:?} missing");
    }
    // The dashed quadrant guides are drawn.
    assert!(svg.contains("<polyline") || svg.contains("<line"));
}

#[test]
fn null_metrics_are_skipped_and_named_in_the_caption() {
    let pack = pack();
    let mut r = report(3, false);
    r.models[1].m6 = None;
    r.models[2].tokens.avg_completion_tokens = None;
    let svg = render_svg(ChartKind::M5M6Scatter, &r, &pack).unwrap();
    let skipped = xml(&r.models[1].model);
    assert!(svg.contains(&format!("Not plotted: {skipped}")), "caption does not name the skipped model");
    assert!(!has_text(&svg, &r.models[1].model), "skipped model still labelled");
    let text = chart_text(ChartKind::TokensVsM1, &r, &pack).unwrap();
    assert!(text.caption.contains("no completion-token counts"), "{}", text.caption);
    assert!(text.caption.contains(&r.models[2].model));
}

#[test]
fn empty_reports_render_a_no_data_chart() {
    let pack = pack();
    for kind in ChartKind::ALL {
        let svg = render_svg(kind, &empty(), &pack).unwrap();
        assert_svg(&svg);
        assert!(svg.contains("No data to plot"), "{}", kind.id());
        let png = render_png(kind, &empty(), &pack, 2).unwrap();
        let (w, h) = chart_size(kind, &empty(), &pack).unwrap();
        assert_eq!(png_size(&png), Some((2 * w, 2 * h)));
    }
}

#[test]
fn all_null_models_render_a_no_data_chart() {
    let pack = pack();
    let mut m = model("Only model", 0.6, 0.0, 300.0);
    m.m5 = None;
    m.m6 = None;
    m.tokens.avg_completion_tokens = None;
    m.behavior.uncertain_routing_pct = None;
    m.behavior.missing_ask_count_pct = None;
    m.by_clause.clear();
    let r = crate::metrics::MetricsReport { models: vec![m], ..Default::default() };
    for kind in ChartKind::ALL {
        let svg = render_svg(kind, &r, &pack).unwrap();
        assert!(svg.contains("No data to plot"), "{}", kind.id());
        if kind != ChartKind::PerClauseDifficulty {
            assert!(svg.contains("Only model"), "{} does not say which model was left out", kind.id());
        }
    }
}

#[test]
fn per_clause_chart_has_29_bars_hardest_first() {
    let pack = pack();
    let r = report(3, false);
    let svg = render_svg(ChartKind::PerClauseDifficulty, &r, &pack).unwrap();
    let rows = crate::tables::clause_rows(&r, &pack);
    assert_eq!(rows.len(), 29);
    let mut sorted: Vec<_> = rows.iter().filter_map(|r| r.mean.map(|m| (m, r.label.clone()))).collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let first = svg.find(&xml(&sorted[0].1)).expect("hardest clause labelled");
    let last = svg.find(&xml(&sorted[28].1)).expect("easiest clause labelled");
    assert!(first < last, "hardest clause is not drawn first");
}

#[test]
fn stacked_charts_have_legends() {
    let pack = pack();
    let r = report(3, false);
    let svg = render_svg(ChartKind::UncertainRouting, &r, &pack).unwrap();
    for s in ["Uncertain (correct)", "Reportable", "Non-reportable", "No usable verdict"] {
        assert!(svg.contains(s), "legend entry {s:?} missing");
    }
    let svg = render_svg(ChartKind::AskDistribution, &r, &pack).unwrap();
    for s in ["answered without asking", "1 question", "4 or more", "Avg."] {
        assert!(svg.contains(s), "legend entry {s:?} missing");
    }
}

#[test]
fn long_names_are_shortened_in_charts_only() {
    let pack = pack();
    let mut r = report(20, false);
    r.models[0].model = "openrouter/meta-llama/llama-3.1-405b-instruct-turbo-preview-2026".into();
    r.models[1].model = "A <b>&amp; \"quoted\" model".into();
    for kind in ChartKind::ALL {
        let svg = render_svg(kind, &r, &pack).unwrap();
        assert_svg(&svg);
        assert!(!svg.contains("<b>"), "{}: markup in a model name leaked into the SVG", kind.id());
    }
    let svg = render_svg(ChartKind::M5M6Scatter, &r, &pack).unwrap();
    assert!(svg.contains(">\n…/llama-3.1-405b-instruct"), "long name not shortened to its last segment");
    assert!(has_text(&svg, "A <b>&amp; \"quoted\" model"));
}

#[test]
fn png_scale_is_checked() {
    let pack = pack();
    let err = render_png(ChartKind::M5M6Scatter, &report(1, false), &pack, 0).unwrap_err();
    assert_eq!(err, ChartError::InvalidScale(0));
    assert!(err.to_string().contains("use 1, 2, 3 or 4"));
}

#[test]
fn kinds_round_trip_by_id() {
    for k in ChartKind::ALL {
        assert_eq!(ChartKind::parse(k.id()), Some(k));
        assert!(k.title().ends_with('?'), "a chart title asks its question");
    }
}

/// Writes sample PNGs and SVGs to /tmp/psebench-charts for eyeballing:
/// `cargo test -p psebench --lib charts::tests::write_samples -- --ignored`.
#[test]
#[ignore]
fn write_samples() {
    let pack = pack();
    let dir = std::path::Path::new("/tmp/psebench-charts");
    std::fs::create_dir_all(dir).unwrap();
    let mut long = report(20, false);
    long.models[0].model = "openrouter/meta-llama/llama-3.1-405b-instruct-turbo-preview-2026".into();
    // Tight clusters near the top right and along the left edge, as real results have.
    let mut crowded = report(15, false);
    let values = [
        (82.2, 77.3, 94.6),
        (77.7, 75.0, 90.2),
        (83.4, 77.6, 92.3),
        (70.1, 76.2, 84.5),
        (88.2, 77.4, 95.3),
        (70.5, 71.6, 85.8),
        (66.5, 66.3, 83.7),
        (54.7, 69.3, 76.7),
        (36.5, 71.6, 79.0),
        (35.3, 61.0, 71.9),
        (46.7, 24.6, 52.4),
        (27.7, 53.5, 60.5),
        (0.3, 0.0, 45.5),
        (0.6, 37.5, 51.3),
        (2.3, 56.6, 61.1),
    ];
    for (m, (m5, m6, m1)) in crowded.models.iter_mut().zip(values) {
        m.m5 = Some(crate::tables::fixtures::prf(m5, m5));
        m.m6 = Some(crate::tables::fixtures::prf(m6, m6));
        m.m1 = Some(m1);
    }
    let reports = [
        ("1", report(1, false)),
        ("3", report(3, true)),
        ("15", report(15, true)),
        ("20", long),
        ("crowded", crowded),
        ("empty", empty()),
    ];
    for (name, r) in &reports {
        for kind in ChartKind::ALL {
            let stem = format!("{}-{name}", kind.id());
            std::fs::write(dir.join(format!("{stem}.svg")), render_svg(kind, r, &pack).unwrap()).unwrap();
            std::fs::write(dir.join(format!("{stem}.png")), render_png(kind, r, &pack, 1).unwrap()).unwrap();
            std::fs::write(dir.join(format!("{stem}@2x.png")), render_png(kind, r, &pack, 2).unwrap()).unwrap();
        }
    }
}

#[test]
fn downsampling_averages_blocks() {
    // A 4×2 image: left 2×2 block black/white checker, right block solid red.
    let mut rgb = Vec::new();
    for row in 0..2 {
        for col in 0..4 {
            let px: [u8; 3] = if col < 2 {
                if (row + col) % 2 == 0 {
                    [0, 0, 0]
                } else {
                    [255, 255, 255]
                }
            } else {
                [200, 10, 10]
            };
            rgb.extend_from_slice(&px);
        }
    }
    assert_eq!(downsample(&rgb, 4, 2, 2), vec![128, 128, 128, 200, 10, 10]);
    assert_eq!(downsample(&rgb, 4, 2, 1), rgb);
}

#[test]
fn frame_text_wraps_and_shortens() {
    let font = canvas::Font::new(style::CAPTION_SIZE, style::TEXT);
    let lines = frame::wrap("one two three four five six seven eight nine ten", font, 120.0);
    assert!(lines.len() > 1);
    assert!(lines.iter().all(|l| font.width(l) <= 120.0));
    assert_eq!(lines.join(" "), "one two three four five six seven eight nine ten");
    let short = frame::shorten_name("org/team/a-very-long-model-name-for-testing", font, 150.0);
    assert!(short.starts_with("…/") && font.width(&short) <= 150.0, "{short}");
    assert_eq!(frame::shorten_name("GPT-5", font, 150.0), "GPT-5");
}

#[test]
fn png_export_decodes_with_its_size_dpi_and_colours() {
    let pack = pack();
    let kind = ChartKind::UncertainRouting;
    let (w, h) = chart_size(kind, &empty(), &pack).unwrap();
    let bytes = render_png(kind, &empty(), &pack, 2).unwrap();
    let mut reader = ::png::Decoder::new(&bytes[..]).read_info().unwrap();
    let dims = reader.info().pixel_dims.expect("a pHYs chunk");
    // 192 dpi = 7559 pixels per metre: viewers show the 2× file at the 1× size.
    assert_eq!((dims.xppu, dims.yppu, dims.unit), (7559, 7559, ::png::Unit::Meter));
    let mut rgb = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut rgb).unwrap();
    assert_eq!((frame.width, frame.height), (2 * w, 2 * h));
    assert_eq!(frame.color_type, ::png::ColorType::Rgb);
    let px = |x: f64, y: f64| {
        let at = ((2.0 * y) as usize * frame.width as usize + (2.0 * x) as usize) * 3;
        [rgb[at], rgb[at + 1], rgb[at + 2]]
    };
    let Prepared::Empty(e) = Prepared::new(kind, &empty(), &pack, &[]) else { panic!("expected the no-data chart") };
    let body = e.frame.body(e.height);
    let plot_bg = [style::PLOT_BG.0, style::PLOT_BG.1, style::PLOT_BG.2];
    assert_eq!(px(1.0, 1.0), [255, 255, 255], "page background");
    assert_eq!(px(body.x0 + 10.0, body.y0 + 10.0), plot_bg, "plot background");
    assert_eq!(px(body.x1 - 10.0, body.y1 - 10.0), plot_bg, "plot background");
    // The headline "No data to plot" is dark text across the middle of the body.
    let mid_y = body.y0 + body.h() / 2.0 - 20.0;
    let dark = (0..(body.w() as usize)).filter(|dx| px(body.x0 + *dx as f64, mid_y).iter().all(|c| *c < 0x60)).count();
    assert!(dark > 10, "only {dark} dark pixels on the headline row");
}

/// A model of the fixture with missing-information cases it `asked` on or not, or none at all.
fn m5_m6_model(name: &str, missing_cases: u64, asked: bool) -> crate::metrics::ModelMetrics {
    let mut m = model(name, 0.6, 0.0, 300.0);
    m.by_case_type.missing.cases = missing_cases;
    m.m6 = None;
    if let Some(p) = m.m5.as_mut() {
        if !asked {
            p.tp = 0;
            p.f1 = 0.0;
        }
    }
    m
}

#[test]
fn m5_m6_empty_state_tells_no_missing_cases_from_never_asking() {
    let pack = pack();
    let none = crate::metrics::MetricsReport { models: vec![m5_m6_model("A", 0, false)], ..Default::default() };
    let t = chart_text(ChartKind::M5M6Scatter, &none, &pack).unwrap();
    assert!(t.caption.contains("no missing-information cases"), "{}", t.caption);
    assert!(!t.caption.contains("never asked"), "{}", t.caption);

    let silent = crate::metrics::MetricsReport { models: vec![m5_m6_model("B", 12, false)], ..Default::default() };
    let t = chart_text(ChartKind::M5M6Scatter, &silent, &pack).unwrap();
    assert!(t.caption.contains("12 missing-information cases, but the model never asked a question"), "{}", t.caption);
    assert!(t.caption.contains("B (never asked a question"), "{}", t.caption);
    assert!(!t.caption.contains("have no missing-information cases"), "{}", t.caption);
    let svg = render_svg(ChartKind::M5M6Scatter, &silent, &pack).unwrap();
    assert!(svg.contains("No data to plot"));

    let both = crate::metrics::MetricsReport {
        models: vec![m5_m6_model("C", 3, false), m5_m6_model("D", 0, false)],
        ..Default::default()
    };
    let t = chart_text(ChartKind::M5M6Scatter, &both, &pack).unwrap();
    assert!(t.caption.contains("C (never asked a question on its missing-information cases"), "{}", t.caption);
    assert!(t.caption.contains("D (no missing-information cases in its run"), "{}", t.caption);
}
