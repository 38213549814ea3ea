//! The self-contained HTML report: the table, a turnaround CDF, locality bars, running containers
//! over time, and a glossary. Charts are hand-written SVG so the report opens from disk with no
//! network and no script.

use std::fmt::Write as _;

use super::{turnarounds, Summary, GLOSSARY};
use crate::engine::Raw;

/// Colour, dash pattern and marker per series: a series drawn exactly over another still shows
/// its dashes and markers, and the report stays readable in grey print.
const STYLES: [(&str, &str, Marker); 8] = [
    ("#1f77b4", "", Marker::Circle),
    ("#d62728", "6,3", Marker::Square),
    ("#2ca02c", "2,2", Marker::Triangle),
    ("#ff7f0e", "8,3,2,3", Marker::Diamond),
    ("#9467bd", "1,3", Marker::Cross),
    ("#8c564b", "10,4", Marker::Plus),
    ("#e377c2", "4,2,1,2", Marker::Circle),
    ("#17becf", "3,5", Marker::Square),
];

#[derive(Clone, Copy)]
enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    Cross,
    Plus,
}

impl Marker {
    fn svg(self, x: f64, y: f64, colour: &str) -> String {
        let r = 3.5;
        match self {
            Marker::Circle => format!(
                "<circle cx='{x:.1}' cy='{y:.1}' r='{r}' fill='white' stroke='{colour}'/>"
            ),
            Marker::Square => format!(
                "<rect x='{:.1}' y='{:.1}' width='{}' height='{}' fill='white' stroke='{colour}'/>",
                x - r,
                y - r,
                2.0 * r,
                2.0 * r
            ),
            Marker::Triangle => format!(
                "<polygon points='{x:.1},{:.1} {:.1},{:.1} {:.1},{:.1}' fill='white' stroke='{colour}'/>",
                y - r,
                x - r,
                y + r,
                x + r,
                y + r
            ),
            Marker::Diamond => format!(
                "<polygon points='{x:.1},{:.1} {:.1},{y:.1} {x:.1},{:.1} {:.1},{y:.1}' fill='white' stroke='{colour}'/>",
                y - r,
                x + r,
                y + r,
                x - r
            ),
            Marker::Cross => format!(
                "<path d='M{:.1},{:.1}L{:.1},{:.1}M{:.1},{:.1}L{:.1},{:.1}' stroke='{colour}' stroke-width='1.5'/>",
                x - r,
                y - r,
                x + r,
                y + r,
                x - r,
                y + r,
                x + r,
                y - r
            ),
            Marker::Plus => format!(
                "<path d='M{:.1},{y:.1}L{:.1},{y:.1}M{x:.1},{:.1}L{x:.1},{:.1}' stroke='{colour}' stroke-width='1.5'/>",
                x - r,
                x + r,
                y - r,
                y + r
            ),
        }
    }
}

pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// Tick values from 0 to at least `max`, at steps of 1, 2 or 5 times a power of ten, about
/// `target` of them: the steps a reader can interpolate between.
pub(crate) fn ticks(max: f64, target: usize) -> Vec<f64> {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let raw = max / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let n = (max / step).ceil() as usize;
    (0..=n).map(|i| i as f64 * step).collect()
}

fn tick_label(v: f64) -> String {
    let whole = (v - v.round()).abs() < 1e-9;
    if whole && v >= 10_000.0 && (v.round() / 1000.0).fract() == 0.0 {
        format!("{}k", v.round() / 1000.0)
    } else if whole {
        format!("{v:.0}")
    } else {
        // Steps are 1, 2 or 5 times a power of ten, so three decimals hold any tick above 0.001.
        format!("{v:.3}").trim_end_matches('0').to_string()
    }
}

/// A plot area with both axes drawn, ticked and labelled; maps data to pixels.
struct Plot {
    w: f64,
    h: f64,
    left: f64,
    bottom: f64,
    top: f64,
    right: f64,
    xmax: f64,
    ymax: f64,
}

impl Plot {
    fn new(w: f64, h: f64, xmax: f64, ymax: f64) -> (Plot, Vec<f64>, Vec<f64>) {
        let (xt, yt) = (ticks(xmax, 8), ticks(ymax, 5));
        let plot = Plot {
            w,
            h,
            left: 55.0,
            bottom: 45.0,
            top: 12.0,
            right: 15.0,
            xmax: *xt.last().unwrap_or(&1.0),
            ymax: *yt.last().unwrap_or(&1.0),
        };
        (plot, xt, yt)
    }

    fn x(&self, v: f64) -> f64 {
        self.left + v / self.xmax * (self.w - self.left - self.right)
    }

    fn y(&self, v: f64) -> f64 {
        self.h - self.bottom - v / self.ymax * (self.h - self.bottom - self.top)
    }

    fn axes(
        &self,
        xt: &[f64],
        yt: &[f64],
        xlabel: &str,
        ylabel: &str,
        yfmt: &dyn Fn(f64) -> String,
    ) -> String {
        let mut s = format!(
            "<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' font-size='11' font-family='sans-serif'>",
            self.w, self.h
        );
        let (x0, y0) = (self.left, self.h - self.bottom);
        for &t in xt {
            let x = self.x(t);
            let _ = write!(
                s,
                "<line x1='{x:.1}' y1='{}' x2='{x:.1}' y2='{y0}' stroke='#e4e4e4'/><line x1='{x:.1}' y1='{y0}' x2='{x:.1}' y2='{}' stroke='black'/><text x='{x:.1}' y='{}' text-anchor='middle'>{}</text>",
                self.top,
                y0 + 4.0,
                y0 + 16.0,
                tick_label(t)
            );
        }
        for &t in yt {
            let y = self.y(t);
            let _ = write!(
                s,
                "<line x1='{x0}' y1='{y:.1}' x2='{}' y2='{y:.1}' stroke='#e4e4e4'/><line x1='{}' y1='{y:.1}' x2='{x0}' y2='{y:.1}' stroke='black'/><text x='{}' y='{:.1}' text-anchor='end'>{}</text>",
                self.w - self.right,
                x0 - 4.0,
                x0 - 6.0,
                y + 4.0,
                yfmt(t)
            );
        }
        let _ = write!(
            s,
            "<line x1='{x0}' y1='{y0}' x2='{}' y2='{y0}' stroke='black'/><line x1='{x0}' y1='{}' x2='{x0}' y2='{y0}' stroke='black'/>",
            self.w - self.right,
            self.top
        );
        let _ = write!(
            s,
            "<text x='{:.1}' y='{}' text-anchor='middle'>{}</text>",
            (x0 + self.w - self.right) / 2.0,
            self.h - 8.0,
            esc(xlabel)
        );
        let _ = write!(
            s,
            "<text transform='translate(13,{:.1}) rotate(-90)' text-anchor='middle'>{}</text>",
            (self.top + y0) / 2.0,
            esc(ylabel)
        );
        s
    }
}

/// An HTML legend (outside the SVG, so long policy labels wrap instead of running off the chart):
/// a line sample with the series' dash and marker, then its label.
fn legend(labels: &[String]) -> String {
    let mut s = String::from("<div class='legend'>");
    for (i, label) in labels.iter().enumerate() {
        let (c, dash, m) = STYLES[i % STYLES.len()];
        let _ = write!(
            s,
            "<span><svg width='44' height='12'><line x1='2' y1='6' x2='42' y2='6' stroke='{c}' stroke-width='2' stroke-dasharray='{dash}'/>{}</svg>{}</span>",
            m.svg(22.0, 6.0, c),
            esc(label)
        );
    }
    s.push_str("</div>");
    s
}

/// Job turnaround CDF, one series per run.
fn jtt_cdf(raws: &[Raw]) -> String {
    let all: Vec<Vec<f64>> = raws.iter().map(turnarounds).collect();
    let max = all.iter().flatten().copied().fold(1.0f64, f64::max);
    let (p, xt, yt) = Plot::new(720.0, 340.0, max, 1.0);
    let mut s = p.axes(
        &xt,
        &yt,
        "job turnaround (s): submit to last task finished",
        "share of finished jobs",
        &|v| format!("{:.0}%", v * 100.0),
    );
    for (i, v) in all.iter().enumerate() {
        if v.is_empty() {
            continue;
        }
        let (c, dash, marker) = STYLES[i % STYLES.len()];
        let mut pts = String::new();
        for (k, x) in v.iter().enumerate() {
            let _ = write!(
                pts,
                "{:.1},{:.1} ",
                p.x(*x),
                p.y((k + 1) as f64 / v.len() as f64)
            );
        }
        let _ = write!(
            s,
            "<polyline fill='none' stroke='{c}' stroke-width='1.5' stroke-dasharray='{dash}' points='{pts}'/>"
        );
        // Markers at the deciles, offset per series so coinciding curves still show each marker.
        for d in 1..=10 {
            let k = (d * v.len()).div_ceil(10).clamp(1, v.len()) - 1;
            let dx = (i % 4) as f64 * 2.0;
            s.push_str(&marker.svg(p.x(v[k]) + dx, p.y((k + 1) as f64 / v.len() as f64), c));
        }
    }
    s.push_str("</svg>");
    let labels: Vec<String> = raws.iter().map(|r| r.label.clone()).collect();
    s + &legend(&labels)
}

/// Stacked map-locality bars with the share written on every segment wide enough to hold it.
fn locality_bars(sums: &[Summary]) -> String {
    let (w, row, bar_x) = (720.0, 28.0, 10.0);
    let bar_w = w - bar_x - 15.0;
    let h = 28.0 + (row + 16.0) * sums.len() as f64;
    let mut s = format!(
        "<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' font-size='11' font-family='sans-serif'>"
    );
    let parts = [
        ("node-local", "#2ca02c"),
        ("rack-local (or same datacenter)", "#ff7f0e"),
        ("off-rack", "#d62728"),
    ];
    let mut lx = bar_x;
    for (name, c) in parts {
        let _ = write!(
            s,
            "<rect x='{lx}' y='3' width='10' height='10' fill='{c}'/><text x='{}' y='12'>{name}</text>",
            lx + 14.0
        );
        lx += 20.0 + name.len() as f64 * 6.2;
    }
    for (i, m) in sums.iter().enumerate() {
        let y = 22.0 + (row + 16.0) * i as f64;
        let _ = write!(
            s,
            "<text x='{bar_x}' y='{}'>{}</text>",
            y + 11.0,
            esc(&m.label)
        );
        let mut x = bar_x;
        let shares = [
            m.map_locality.node_share,
            m.map_locality.rack_or_dc_share,
            m.map_locality.off_share,
        ];
        for (share, (_, c)) in shares.iter().zip(parts) {
            let bw = share.clamp(0.0, 1.0) * bar_w;
            let by = y + 15.0;
            let _ = write!(
                s,
                "<rect x='{x:.1}' y='{by}' width='{bw:.1}' height='{}' fill='{c}'><title>{:.1}%</title></rect>",
                row - 6.0,
                share * 100.0
            );
            if bw >= 34.0 {
                let _ = write!(
                    s,
                    "<text x='{:.1}' y='{:.1}' text-anchor='middle' fill='white' font-weight='bold'>{:.1}%</text>",
                    x + bw / 2.0,
                    by + 15.0,
                    share * 100.0
                );
            }
            x += bw;
        }
    }
    s.push_str("</svg>");
    s
}

/// Running map and reduce containers over time for one run.
fn share_over_time(raw: &Raw) -> String {
    let tmax = raw.timeline.last().map_or(1, |t| t.0).max(1) as f64 / 1000.0;
    let ymax = raw
        .timeline
        .iter()
        .map(|t| t.1.max(t.2) as f64)
        .fold(1.0f64, f64::max);
    let (p, xt, yt) = Plot::new(720.0, 220.0, tmax, ymax);
    let mut s = p.axes(
        &xt,
        &yt,
        "simulated time (s)",
        "running containers",
        &tick_label,
    );
    for (k, (c, dash, _)) in [(1usize, STYLES[0]), (2, STYLES[1])] {
        let mut pts = String::new();
        for t in &raw.timeline {
            let v = if k == 1 { t.1 } else { t.2 } as f64;
            let _ = write!(pts, "{:.1},{:.1} ", p.x(t.0 as f64 / 1000.0), p.y(v));
        }
        let _ = write!(
            s,
            "<polyline fill='none' stroke='{c}' stroke-width='1.5' stroke-dasharray='{dash}' points='{pts}'/>"
        );
    }
    s.push_str("</svg>");
    s + &legend(&["maps".to_string(), "reduces".to_string()])
}

fn glossary() -> String {
    let mut s = String::from("<h2>What the figures mean</h2><dl>");
    for (name, meaning) in GLOSSARY {
        let _ = write!(s, "<dt>{}</dt><dd>{}</dd>", esc(name), esc(meaning));
    }
    s.push_str("</dl>");
    s
}

/// A self-contained HTML page: the table, the JTT CDF, locality bars, running containers over
/// time for each run, and what every figure means.
pub fn html(workload: &str, table_text: &str, sums: &[Summary], raws: &[Raw]) -> String {
    let mut s = String::from(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>locus-sim report</title>",
    );
    s.push_str(
        "<style>body{font-family:sans-serif;margin:20px;max-width:760px}pre{background:#f6f6f6;padding:8px;overflow-x:auto}\
         .legend span{display:inline-block;margin:2px 14px 2px 0;font-size:12px}.legend svg{vertical-align:middle;margin-right:4px}\
         dt{font-weight:bold;margin-top:6px}dd{margin-left:18px}</style></head><body>",
    );
    let _ = write!(
        s,
        "<h1>locus-sim: {}</h1><pre>{}</pre>",
        esc(workload),
        esc(table_text)
    );
    let _ = write!(
        s,
        "<h2>Job turnaround CDF</h2><p>Further left is better: the share of jobs finished within a given turnaround.</p>{}",
        jtt_cdf(raws)
    );
    let _ = write!(
        s,
        "<h2>Map locality</h2><p>Where each map attempt read its input, as a share of the maps that read input.</p>{}",
        locality_bars(sums)
    );
    s.push_str("<h2>Running map and reduce containers over time</h2>");
    for r in raws {
        let _ = write!(s, "<h3>{}</h3>{}", esc(&r.label), share_over_time(r));
    }
    s.push_str(&glossary());
    s.push_str("</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_cover_the_maximum_at_readable_steps() {
        let labels: Vec<String> = ticks(1.0, 5).into_iter().map(tick_label).collect();
        assert_eq!(labels, ["0", "0.2", "0.4", "0.6", "0.8", "1"]);
        assert_eq!(tick_label(20_000.0), "20k");
        assert_eq!(
            ticks(730.0, 8),
            vec![0.0, 100.0, 200.0, 300.0, 400.0, 500.0, 600.0, 700.0, 800.0]
        );
        assert_eq!(ticks(37.0, 5), vec![0.0, 10.0, 20.0, 30.0, 40.0]);
        // Degenerate input still gives an axis rather than NaN coordinates.
        assert_eq!(ticks(0.0, 5), ticks(1.0, 5));
        assert_eq!(ticks(f64::NAN, 5), ticks(1.0, 5));
    }

    fn raw(label: &str, turnaround_s: &[u64]) -> Raw {
        Raw {
            label: label.into(),
            jobs: turnaround_s.len(),
            submit_ms: vec![0; turnaround_s.len()],
            finish_ms: turnaround_s.iter().map(|s| Some(s * 1000)).collect(),
            timeline: vec![(0, 0, 0, 0.0), (50_000, 12, 3, 0.5), (120_000, 0, 0, 0.0)],
            ..Default::default()
        }
    }

    #[test]
    fn identical_runs_stay_distinguishable_and_axes_carry_numbers() {
        let raws = [raw("fifo", &[10, 20, 300]), raw("fair", &[10, 20, 300])];
        let sums: Vec<Summary> = raws
            .iter()
            .map(|r| super::super::summarise(r, None, false, false))
            .collect();
        let page = html("w", "table", &sums, &raws);
        // The second series is dashed and carries its own marker shape, so it shows even when it
        // lies exactly on the first.
        assert!(page.contains("stroke='#d62728' stroke-width='1.5' stroke-dasharray='6,3'"));
        assert!(page.contains("<circle") && page.contains("<rect x="));
        // Axis tick labels: turnaround seconds, CDF percentages, simulated seconds, containers.
        for tick in [">300<", ">100%<", ">40%<", ">120<", ">15<"] {
            assert!(page.contains(tick), "missing tick label {tick}");
        }
        assert!(page.contains("job turnaround (s)") && page.contains("running containers"));
        // Both labels appear in the legend.
        assert!(page.contains("fifo</span>") && page.contains("fair</span>"));
    }

    #[test]
    fn locality_bars_print_their_percentages() {
        let mut r = raw("delay", &[5]);
        for _ in 0..3 {
            r.traffic.map_read(crate::cluster::Distance::Node, 1e9);
        }
        r.traffic.map_read(crate::cluster::Distance::Rack, 1e9);
        let s = super::super::summarise(&r, None, false, false);
        let bars = locality_bars(&[s]);
        assert!(bars.contains(">75.0%<"), "{bars}");
        assert!(bars.contains(">25.0%<"), "{bars}");
    }

    #[test]
    fn labels_are_escaped() {
        assert_eq!(esc("a<b & 'c'"), "a&lt;b &amp; &#39;c&#39;");
    }
}
