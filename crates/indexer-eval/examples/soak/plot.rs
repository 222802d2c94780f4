//! The plot `soak.png`: memory and search latency over the run, with the ingests shaded.

use crate::corpus::IngestRecord;
use crate::error::Result;
use crate::measured::Report;
use crate::sample::Sample;
use indexer_eval::register_font;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

const RSS_COLOR: RGBColor = RGBColor(31, 119, 180);
const ANON_COLOR: RGBColor = RGBColor(23, 190, 207);
const P50_COLOR: RGBColor = RGBColor(44, 160, 44);
const P99_COLOR: RGBColor = RGBColor(214, 39, 40);
const ADD_COLOR: RGBColor = RGBColor(255, 127, 14);
const REMOVE_COLOR: RGBColor = RGBColor(148, 103, 189);

/// Two panels over the run's minutes: RSS above, search p50 and p99 below; each ingest a
/// shaded span from its start to its end (orange: an addition, purple: a removal).
pub(crate) fn plot(path: &Path, r: &Report) -> Result<()> {
    let err = |e: String| format!("cannot draw {}: {e}", path.display());
    let font = register_font();
    let root = BitMapBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let (top, bottom) = root.split_vertically(240);
    let minutes = (r.seconds / 60.0).max(0.1);
    let rss: Vec<(f64, f64)> = r
        .samples
        .iter()
        .map(|x| (x.seconds / 60.0, x.rss_mib))
        .collect();
    let anon: Vec<(f64, f64)> = r
        .samples
        .iter()
        .map(|x| (x.seconds / 60.0, x.anon_mib))
        .collect();
    let rss_max = rss.iter().map(|p| p.1).fold(1.0, f64::max) * 1.15;
    let rss_panel = Panel {
        caption: format!(
            "server RSS (MiB); {} errors in {} requests",
            r.errors_total, r.requests_total
        ),
        y_desc: "MiB",
        legend: SeriesLabelPosition::LowerRight,
        x_max: minutes,
        y_max: rss_max,
    };
    rss_panel
        .draw(
            &top,
            font,
            &r.ingests,
            &[("RSS", RSS_COLOR, rss), ("anonymous", ANON_COLOR, anon)],
        )
        .map_err(err)?;
    let p = |f: fn(&Sample) -> Option<f64>| -> Vec<(f64, f64)> {
        r.samples
            .iter()
            .filter_map(|x| f(x).map(|v| (x.seconds / 60.0, v)))
            .collect()
    };
    let (p50, p99) = (p(|x| x.p50_ms), p(|x| x.p99_ms));
    // Room above the lines for the legend.
    let ms_max = p99.iter().map(|p| p.1).fold(1.0, f64::max) * 1.5;
    let latency_panel = Panel {
        caption: format!(
            "search latency per {} s window (ms)",
            r.sample_every.as_secs_f64()
        ),
        y_desc: "ms",
        legend: SeriesLabelPosition::UpperRight,
        x_max: minutes,
        y_max: ms_max,
    };
    let lines = [("p50", P50_COLOR, p50), ("p99", P99_COLOR, p99)];
    latency_panel
        .draw(&bottom, font, &r.ingests, &lines)
        .map_err(err)?;
    root.present().map_err(|e| err(e.to_string()))
}

type Series<'a> = (&'a str, RGBColor, Vec<(f64, f64)>);

/// One panel: minutes on x up to `x_max`, values on y from 0 to `y_max`.
#[derive(Debug)]
struct Panel {
    caption: String,
    y_desc: &'static str,
    legend: SeriesLabelPosition,
    x_max: f64,
    y_max: f64,
}

impl Panel {
    /// Draws `lines` with the ingests shaded behind them.
    fn draw(
        &self,
        area: &DrawingArea<BitMapBackend, Shift>,
        font: bool,
        ingests: &[IngestRecord],
        lines: &[Series],
    ) -> Result<()> {
        let Panel {
            caption,
            y_desc,
            legend,
            x_max,
            y_max,
        } = self;
        let (x_max, y_max, legend) = (*x_max, *y_max, legend.clone());
        let e = |e: &dyn std::fmt::Display| e.to_string();
        let mut builder = ChartBuilder::on(area);
        builder.margin(10);
        if font {
            builder
                .caption(caption.as_str(), ("sans-serif", 16))
                .x_label_area_size(28)
                .y_label_area_size(50);
        }
        let mut chart = builder
            .build_cartesian_2d(0f64..x_max, 0f64..y_max)
            .map_err(|x| e(&x))?;
        if font {
            chart
                .configure_mesh()
                .x_desc("minutes")
                .y_desc(*y_desc)
                .y_label_formatter(&|v| format!("{v:.0}"))
                .light_line_style(WHITE.mix(0.0))
                .draw()
                .map_err(|x| e(&x))?;
        }
        for g in ingests
            .iter()
            .filter(|g| g.start_s >= 0.0 && g.change != "initial")
        {
            let c = if g.change.starts_with("add") {
                ADD_COLOR
            } else {
                REMOVE_COLOR
            };
            let (x0, x1) = (
                g.start_s / 60.0,
                (g.end_s / 60.0).max(g.start_s / 60.0 + x_max / 300.0),
            );
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x0, 0.0), (x1.min(x_max), y_max)],
                    c.mix(0.25).filled(),
                )))
                .map_err(|x| e(&x))?;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x0, 0.0), (x0, y_max)],
                    c.stroke_width(1),
                )))
                .map_err(|x| e(&x))?;
        }
        for (name, color, pts) in lines {
            let c = *color;
            let series = chart
                .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
                .map_err(|x| e(&x))?;
            if font {
                series.label(*name).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 15, y)], c.stroke_width(2))
                });
            }
        }
        if font {
            for (name, c) in [("ingest: add", ADD_COLOR), ("ingest: remove", REMOVE_COLOR)] {
                chart
                    .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())
                    .map_err(|x| e(&x))?
                    .label(name)
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 15, y + 5)], c.mix(0.5).filled())
                    });
            }
            chart
                .configure_series_labels()
                .position(legend)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(|x| e(&x))?;
        }
        Ok(())
    }
}
